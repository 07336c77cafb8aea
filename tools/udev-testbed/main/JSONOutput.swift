import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Writes one JSON object per line on stdout with a single `write(2)`, so that lines from the testbed
/// and from a child sharing its stdout never interleave (a pipe write under `PIPE_BUF` is atomic).
enum JSONOutput {
    private static let lock = Mutex(())

    static func emit(_ object: [String: Any?]) {
        let cleaned = object.compactMapValues { $0 }
        guard
            var data = try? JSONSerialization.data(
                withJSONObject: cleaned,
                options: [.sortedKeys, .withoutEscapingSlashes]
            )
        else {
            FileHandle.standardError.write(Data("nbgw-udev-testbed: cannot encode \(object)\n".utf8))
            return
        }
        data.append(0x0A)
        lock.withLock { _ in
            data.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = write(1, buffer.baseAddress! + offset, buffer.count - offset)
                    if written <= 0 { return }
                    offset += written
                }
            }
        }
    }

    /// A Codable value as a JSON-compatible dictionary.
    static func object<Value: Encodable>(_ value: Value) -> Any {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(value), let object = try? JSONSerialization.jsonObject(with: data) else {
            return NSNull()
        }
        return object
    }

    static func warn(_ message: String) {
        FileHandle.standardError.write(Data("nbgw-udev-testbed: \(message)\n".utf8))
    }
}
