import Foundation
import Hummingbird

extension StrictJSON {
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
            .payloadTooLarge,
            "request body is over \(limit) bytes; send one QR payload (at most 4096 bytes) per request"
        )
    }

    /// Decodes `T` from `request`'s body, strictly.
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, limit: Int) async throws -> T {
        let buffer = try await body(request, limit: limit)
        return try decode(type, from: Data(buffer.readableBytesView))
    }
}
