import Foundation

/// A fresh directory under the system's temporary directory (mode 0700), removed when released.
final class TemporaryDirectory: Sendable {
    let url: URL

    init() throws {
        url = URL(fileURLWithPath: "/tmp").appendingPathComponent("nbgwd-test-\(UUID().uuidString.prefix(12))")
        try FileManager.default.createDirectory(
            at: url,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// A path inside the directory.
    func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }
}
