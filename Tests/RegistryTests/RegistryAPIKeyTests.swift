import Foundation
import Registry
import Testing

/// The per-request key check reads through a connection of its own (not GRDB's pool); these check
/// that it always sees what is committed, by this process or another, at the moment of the check.
@Suite("API key checks")
struct RegistryAPIKeyTests {
    private static let digest = [UInt8](repeating: 7, count: 32)
    private static let otherDigest = [UInt8](repeating: 9, count: 32)

    @Test("A key revoked through another connection to the store is refused at its very next check")
    func revocationByAnotherProcessIsImmediate() throws {
        let store = try TestStore()
        let server = try Registry(path: store.path)
        _ = try server.apiKeys.create(name: "scanner-1", prefix: "nbgw_aaaa1111", keyHash: Self.digest)
        #expect(try server.apiKeys.verify(prefix: "nbgw_aaaa1111", keyHash: Self.digest)?.name == "scanner-1")
        // Writes in between, so the check's connection has seen the log move since its last read.
        _ = try server.apiKeys.create(name: "scanner-2", prefix: "nbgw_bbbb2222", keyHash: Self.otherDigest)
        #expect(try server.apiKeys.verify(prefix: "nbgw_aaaa1111", keyHash: Self.digest)?.name == "scanner-1")

        // `nbgw apikeys revoke` is another process: another registry on the same file.
        let operatorCLI = try Registry(path: store.path)
        try operatorCLI.apiKeys.revoke(name: "scanner-1")

        #expect(try server.apiKeys.verify(prefix: "nbgw_aaaa1111", keyHash: Self.digest) == nil)
        #expect(try server.apiKeys.verify(prefix: "nbgw_bbbb2222", keyHash: Self.otherDigest)?.name == "scanner-2")
    }

    @Test("A key created by another process is accepted at once; a wrong digest or an unknown prefix is not")
    func newKeysAndWrongDigests() throws {
        let store = try TestStore()
        let server = try Registry(path: store.path)
        #expect(try server.apiKeys.verify(prefix: "nbgw_cccc3333", keyHash: Self.digest) == nil)
        let operatorCLI = try Registry(path: store.path)
        _ = try operatorCLI.apiKeys.create(name: "scanner-3", prefix: "nbgw_cccc3333", keyHash: Self.digest)

        let found = try #require(try server.apiKeys.verify(prefix: "nbgw_cccc3333", keyHash: Self.digest))
        #expect(found.name == "scanner-3" && found.prefix == "nbgw_cccc3333" && found.revokedAt == nil)
        #expect(try server.apiKeys.verify(prefix: "nbgw_cccc3333", keyHash: Self.otherDigest) == nil)
        #expect(try server.apiKeys.verify(prefix: "nbgw_dddd4444", keyHash: Self.digest) == nil)
        #expect(try server.apiKeys.all().map(\.name) == ["scanner-3"])
    }

    @Test("Checks from many threads at once all get the right answer")
    func concurrentChecks() async throws {
        let store = try TestStore()
        let server = try Registry(path: store.path)
        for index in 0..<8 {
            _ = try server.apiKeys.create(
                name: "scanner-\(index)",
                prefix: "nbgw_key\(index)0000",
                keyHash: [UInt8](repeating: UInt8(index), count: 32)
            )
        }
        let wrong = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<8 {
                group.addTask {
                    var wrong = 0
                    for round in 0..<200 {
                        // Every other round a wrong digest: it must be refused, the right one accepted.
                        let digest = [UInt8](repeating: UInt8(round % 2 == 0 ? index : index + 100), count: 32)
                        let key = try server.apiKeys.verify(prefix: "nbgw_key\(index)0000", keyHash: digest)
                        if (round % 2 == 0) != (key?.name == "scanner-\(index)") { wrong += 1 }
                    }
                    return wrong
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(wrong == 0)
    }
}
