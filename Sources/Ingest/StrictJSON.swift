import Foundation
import NBGWCore

/// Strict JSON request bodies: size-capped, an object, no unknown fields, no wrong types.
///
/// This file is Foundation only (reading a body off a request is StrictJSON+Request.swift), so that
/// Fuzz/ builds the decoding alone for fuzz-ingest-json.
enum StrictJSON {
    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Throws 400 INVALID_ARGUMENT naming the first field of `decoder`'s object not in `allowed`.
    static func rejectUnknownKeys(_ decoder: any Decoder, allowed: Set<String>) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        let unknown = container.allKeys.map(\.stringValue).filter { !allowed.contains($0) }.sorted()
        if let first = unknown.first {
            throw IngestError.invalid(
                "unknown field \(first.escapedForDisplay()) in the request body; allowed fields: "
                    + allowed.sorted().joined(separator: ", ")
            )
        }
    }

    static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        guard !data.isEmpty else { throw emptyBody }
        // Fast path: a flat object of strings (every well-formed request) without JSONDecoder.
        // Anything else, including every malformed body, takes JSONDecoder's path below, which
        // words the errors.
        if let flat = type as? any FlatRequest.Type, let fields = flatObject(data),
            let value = try flat.init(fields: fields)
        {
            return value as! T
        }
        return try decodeWithFoundation(type, from: data)
    }

    /// The general path: `JSONDecoder`, its errors worded for the API. A body that repeats a key is
    /// refused before it decodes (``JSONDuplicateKeys``): `JSONDecoder` would keep one of the two
    /// values, and a proxy in front of the API might have checked the other.
    static func decodeWithFoundation<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        if let key = JSONDuplicateKeys.first(in: data) { throw duplicate(key) }
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as IngestError {
            throw error
        } catch let error as NBGWError {
            throw IngestError(error)
        } catch DecodingError.keyNotFound(let key, _) {
            throw IngestError(
                NBGWError(.missingField, "the request body lacks the required field \"\(key.stringValue)\"")
            )
        } catch DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context) {
            let field = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw IngestError.invalid(
                field.isEmpty
                    ? "the request body must be a JSON object"
                    : "field \"\(field)\" has the wrong type: \(context.debugDescription)"
            )
        } catch {
            throw IngestError.invalid("the request body is not valid JSON; send a JSON object (UTF-8)")
        }
    }

    /// What ``decode(_:from:)`` throws for an empty body, before either path.
    static let emptyBody = IngestError(NBGWError(.missingField, "the request body is empty; send a JSON object"))

    /// Throws what ``rejectUnknownKeys(_:allowed:)`` throws, for the fast path's fields.
    static func rejectUnknown(_ fields: [String: String?], allowed: Set<String>) throws {
        if let first = fields.keys.filter({ !allowed.contains($0) }).sorted().first {
            throw IngestError.invalid(
                "unknown field \(first.escapedForDisplay()) in the request body; allowed fields: "
                    + allowed.sorted().joined(separator: ", ")
            )
        }
    }

    /// What ``decode(_:from:)`` throws for a body that holds a key twice (`path`: `qr`, or
    /// `a.b` inside an object).
    static func duplicate(_ path: String) -> IngestError {
        IngestError.invalid(
            "the request body holds the field \(path.escapedForDisplay()) twice; send each field once"
        )
    }

    /// What ``decode(_:from:)`` throws for a missing required field.
    static func missing(_ field: String) -> IngestError {
        IngestError(NBGWError(.missingField, "the request body lacks the required field \"\(field)\""))
    }

    /// The fields of `data` when it is exactly one JSON object whose values are all strings or
    /// `null` (nil); nil for anything else (other value types, duplicate keys, invalid escapes or
    /// UTF-8, trailing bytes), which then goes to `JSONDecoder`'s path (where a duplicate key is
    /// refused).
    static func flatObject(_ data: Data) -> [String: String?]? {
        data.withUnsafeBytes { raw -> [String: String?]? in
            let bytes = raw.bindMemory(to: UInt8.self)
            var index = 0
            func skipSpace() {
                while index < bytes.count,
                    bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09
                {
                    index += 1
                }
            }
            func hex4() -> UInt32? {
                guard index + 4 <= bytes.count else { return nil }
                var value: UInt32 = 0
                for _ in 0..<4 {
                    let byte = bytes[index]
                    let digit: UInt8
                    switch byte {
                    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                    case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                    default: return nil
                    }
                    value = value << 4 | UInt32(digit)
                    index += 1
                }
                return value
            }
            // A string starting at `index` (on its opening quote).
            func string() -> String? {
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
                index += 1
                var text: [UInt8] = []
                while index < bytes.count {
                    let byte = bytes[index]
                    index += 1
                    switch byte {
                    case UInt8(ascii: "\""):
                        return String(validating: text, as: UTF8.self)
                    case UInt8(ascii: "\\"):
                        guard index < bytes.count else { return nil }
                        let escaped = bytes[index]
                        index += 1
                        switch escaped {
                        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escaped)
                        case UInt8(ascii: "b"): text.append(0x08)
                        case UInt8(ascii: "f"): text.append(0x0C)
                        case UInt8(ascii: "n"): text.append(0x0A)
                        case UInt8(ascii: "r"): text.append(0x0D)
                        case UInt8(ascii: "t"): text.append(0x09)
                        case UInt8(ascii: "u"):
                            // Only scalars outside the surrogate range; pairs go to JSONDecoder.
                            guard let value = hex4(), !(0xD800...0xDFFF).contains(value),
                                let scalar = Unicode.Scalar(value)
                            else { return nil }
                            text.append(contentsOf: Array(String(Character(scalar)).utf8))
                        default: return nil
                        }
                    case 0..<0x20:
                        return nil
                    default:
                        text.append(byte)
                    }
                }
                return nil
            }
            var fields: [String: String?] = [:]
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return nil }
            index += 1
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
            } else {
                while true {
                    skipSpace()
                    guard let key = string(), fields[key] == nil else { return nil }
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                    index += 1
                    skipSpace()
                    if index + 4 <= bytes.count, bytes[index] == UInt8(ascii: "n"),
                        bytes[index + 1] == UInt8(ascii: "u"),
                        bytes[index + 2] == UInt8(ascii: "l"), bytes[index + 3] == UInt8(ascii: "l")
                    {
                        index += 4
                        fields[key] = .some(nil)
                    } else {
                        guard let value = string() else { return nil }
                        fields[key] = .some(value)
                    }
                    skipSpace()
                    guard index < bytes.count else { return nil }
                    if bytes[index] == UInt8(ascii: ",") {
                        index += 1
                        continue
                    }
                    guard bytes[index] == UInt8(ascii: "}") else { return nil }
                    index += 1
                    break
                }
            }
            skipSpace()
            return index == bytes.count ? fields : nil
        }
    }
}

/// A request body the fast path of ``StrictJSON/decode(_:from:)`` can build from a flat object.
protocol FlatRequest: Decodable {
    /// The request from the object's fields (a nil value is JSON `null`), throwing exactly what the
    /// `Decodable` initializer would throw; nil sends the body to `JSONDecoder` (e.g. a required
    /// field that is `null`, whose error `JSONDecoder` words).
    init?(fields: [String: String?]) throws
}
