import Foundation
import Hummingbird

/// JSON responses, encoded like the CLI's `--json`: sorted keys, unescaped slashes, ISO 8601 UTC
/// timestamps with milliseconds.
enum IngestJSON {
    static func encode<T: Encodable>(_ value: T) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(IngestJSON.timestamp(date))
        }
        return try encoder.encode(value)
    }

    static func response<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) throws -> Response {
        var data = try encode(value)
        data.append(UInt8(ascii: "\n"))
        return response(ByteBuffer(bytes: data), status: status)
    }

    static func response(_ body: ByteBuffer, status: HTTPResponse.Status) -> Response {
        Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: body)
        )
    }

    /// A bind's result, written directly: the hot path's response, byte for byte what
    /// ``encode(_:)`` writes for the same value (`IngestJSONTests` compares them). Why not
    /// `JSONEncoder`: with sorted keys and a date strategy it costs as much as the bind's SQL.
    static func bindResponse(_ value: IngestAPI.BindResponse, status: HTTPResponse.Status) -> Response {
        response(bindResponseBody(value), status: status)
    }

    /// The body of ``bindResponse(_:status:)``.
    static func bindResponseBody(_ value: IngestAPI.BindResponse) -> ByteBuffer {
        var object = ObjectWriter()
        object.string("account", value.account)
        object.string("boundAt", timestamp(value.boundAt))
        object.string("cloudMessage", value.cloudMessage)
        object.string("cloudSync", value.cloudSync)
        object.string("deviceId", value.deviceId)
        object.string("home", value.home)
        object.string("imei", value.imei)
        object.string("operator", value.operator)
        object.string("source", value.source)
        object.string("status", value.status)
        return object.finish()
    }

    static func errorResponse(_ error: IngestError) -> Response {
        let body = IngestAPI.ErrorBody(error: .init(code: error.code, message: error.message))
        var data = (try? encode(body)) ?? Data(#"{"error":{"code":"INTERNAL","message":"encoding failed"}}"#.utf8)
        data.append(UInt8(ascii: "\n"))
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if error.status == 401 {
            headers[.wwwAuthenticate] = #"Bearer realm="nbgw""#
        }
        if let retry = error.retryAfterSeconds {
            headers[.retryAfter] = String(retry)
        }
        if let allow = error.allow {
            headers[.allow] = allow.joined(separator: ", ")
        }
        return Response(
            status: HTTPResponse.Status(code: error.status),
            headers: headers,
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }

    /// `2026-11-21T23:40:03.122Z`: what `Date.ISO8601FormatStyle(includingFractionalSeconds: true)`
    /// prints (the CLI's `Output.timestamp`), without its cost. Like it, the milliseconds are the
    /// Double's fraction cut, not rounded (a stored `…123` ms can print `.122`), so the API and the
    /// CLI print the same text for the same row.
    static func timestamp(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        let whole = seconds.rounded(.down)
        let millis = Int64(whole) * 1000 + Int64(((seconds - whole) * 1000).rounded(.down))
        let dayMillis: Int64 = 86_400_000
        var days = millis >= 0 ? millis / dayMillis : (millis - dayMillis + 1) / dayMillis
        let ofDay = millis - days * dayMillis
        // Civil date from days since 1970-01-01 (H. Hinnant's `civil_from_days`, proleptic Gregorian).
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        var text: [UInt8] = []
        text.reserveCapacity(24)
        func digits(_ value: Int64, _ width: Int) {
            var divisor: Int64 = 1
            for _ in 1..<width { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                text.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(year, 4)
        text.append(UInt8(ascii: "-"))
        digits(month, 2)
        text.append(UInt8(ascii: "-"))
        digits(day, 2)
        text.append(UInt8(ascii: "T"))
        digits(ofDay / 3_600_000, 2)
        text.append(UInt8(ascii: ":"))
        digits(ofDay / 60_000 % 60, 2)
        text.append(UInt8(ascii: ":"))
        digits(ofDay / 1000 % 60, 2)
        text.append(UInt8(ascii: "."))
        digits(ofDay % 1000, 3)
        text.append(UInt8(ascii: "Z"))
        return String(decoding: text, as: UTF8.self)
    }

    /// One JSON object written key by key (callers give the keys in sorted order, as `.sortedKeys`
    /// would), with `JSONEncoder`'s escaping: `"` and `\` escaped, `\b \t \n \f \r` short,
    /// other control characters `\u00XX`, everything else (slashes, non-ASCII) as is. Absent
    /// values are omitted, as the encoder omits nil optionals.
    struct ObjectWriter {
        private var bytes: [UInt8] = [UInt8(ascii: "{")]

        init() {
            bytes.reserveCapacity(512)
        }

        mutating func string(_ key: String, _ value: String?) {
            guard let value else { return }
            if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
            append(key)
            bytes.append(UInt8(ascii: ":"))
            append(value)
        }

        /// The object, closed and followed by a newline (as every response body).
        mutating func finish() -> ByteBuffer {
            bytes.append(UInt8(ascii: "}"))
            bytes.append(UInt8(ascii: "\n"))
            return ByteBuffer(bytes: bytes)
        }

        private mutating func append(_ text: String) {
            bytes.append(UInt8(ascii: "\""))
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
                case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
                case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
                case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
                case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
                case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
                case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
                case 0..<0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: Array("\\u00".utf8))
                    bytes.append(hex[Int(byte >> 4)])
                    bytes.append(hex[Int(byte & 0x0F)])
                default: bytes.append(byte)
                }
            }
            bytes.append(UInt8(ascii: "\""))
        }
    }
}
