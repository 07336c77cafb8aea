import Foundation
import NBGWCore
import Registry

/// A real SQLite file in a fresh temporary directory, removed when the test ends.
final class TestStore: Sendable {
    let directory: URL
    let path: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("nbgw-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("store.sqlite").path
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}
