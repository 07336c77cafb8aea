import Foundation
import Hummingbird
import Pairing

/// Strict JSON request bodies: size-capped, an object, no unknown fields, no wrong types.
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

    /// Reads at most `limit` bytes of `request`'s body (413 above it, by Content-Length first).
    static func body(_ request: Request, limit: Int) async throws -> ByteBuffer {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw tooLarge(limit)
        }
        do {
            return try await request.body.collect(upTo: limit)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw tooLarge(limit)
        }
    }

    static func tooLarge(_ limit: Int) -> IngestError {
        IngestError(
            status: 413,
            code: IngestError.payloadTooLarge,
            message: "request body is over \(limit) bytes; send one QR payload (at most 4096 bytes) per request"
        )
    }

    /// Decodes `T` from `request`'s body, strictly.
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, limit: Int) async throws -> T {
        let buffer = try await body(request, limit: limit)
        return try decode(type, from: Data(buffer.readableBytesView))
    }

    static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        guard !data.isEmpty else {
            throw IngestError(NBGWError(.missingField, "the request body is empty; send a JSON object"))
        }
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
}
