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

extension Registry.BatchInput {
    /// The input of a batch a test drives through `BatchSession` itself (no file is read): `path`
    /// with its report beside it, no default account or home, records from line 2.
    static func driven(at path: String, operator: String? = nil) -> Registry.BatchInput {
        Registry.BatchInput(
            path: path,
            size: 1,
            mtimeNanoseconds: 1,
            reportPath: path + ".report.csv",
            defaultAccount: nil,
            defaultHome: nil,
            operator: `operator`,
            firstRecordOffset: 0,
            firstRecordLine: 2
        )
    }
}
