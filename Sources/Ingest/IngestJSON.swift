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
            try container.encode(date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        }
        return try encoder.encode(value)
    }

    static func response<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) throws -> Response {
        var data = try encode(value)
        data.append(UInt8(ascii: "\n"))
        return Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
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
        return Response(
            status: HTTPResponse.Status(code: error.status),
            headers: headers,
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}
