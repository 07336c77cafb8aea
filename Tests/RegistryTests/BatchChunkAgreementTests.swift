import DeviceIdentity
import Foundation
import NBGWCore
import Testing

@testable import Registry

/// The batch path decides rows a chunk at a time with prepared statements and cached facts; the
/// single path decides one bind in its own transaction. Both must give every row the same outcome.
@Suite("A CSV chunk decides each row exactly as a single bind does")
struct BatchChunkAgreementTests {
    /// alice (owner) with home lab; bob (owner) with home bobs for meters only; gus a guest. The
    /// meter is already bound to bob/bobs; the tracker and the spare are free.
    static func store(_ directory: URL, _ name: String) throws -> Registry {
        let registry = try Registry(path: directory.appendingPathComponent(name).path)
        try registry.directory.addAccount(name: "alice", role: .owner)
        try registry.directory.addAccount(name: "bob", role: .owner)
        try registry.directory.addAccount(name: "gus", role: .guest)
        try registry.directory.addHome(name: "lab", owner: "alice")
        try registry.directory.addHome(name: "bobs", owner: "bob", allowedProducts: ["meter"])
        for (imei, id, code, product) in [
            ("490154203237518", "nbmeter0000000000001", "METER0000001", "meter"),
            ("356938035643809", "nbtracker00000000001", "TRACK0000001", "tracker"),
            ("352099001761481", "nbspare0000000000001", "SPARE0000001", "meter"),
        ] {
            _ = try registry.directory.recordRegistration(
                ModuleIdentity(imei: try IMEI(imei), productID: product),
                deviceID: try DeviceID(id),
                labelCode: code,
                minted: true
            )
        }
        _ = try registry.bindings.bind(
            BindCommand(deviceID: try DeviceID("nbmeter0000000000001"), account: "bob", home: "bobs", source: .cli)
        )
        return registry
    }

    /// Device, account, home; every rule the seed and the schema hold, and the bound and
    /// unchanged cases.
    static let cases: [(device: String, account: String, home: String)] = [
        ("nbtracker00000000001", "alice", "lab"),  // bound
        ("nbmeter0000000000001", "bob", "bobs"),  // unchanged
        ("nbmeter0000000000001", "alice", "lab"),  // bound to someone else
        ("nbunknown00000000001", "alice", "lab"),  // no such device
        ("nbspare0000000000001", "gus", "lab"),  // a guest cannot bind
        ("nbspare0000000000001", "alice", "bobs"),  // not alice's home
        ("nbtracker00000000001", "bob", "bobs"),  // product not allowed in bobs
        ("nbspare0000000000001", "nobody", "lab"),  // no such account
        ("nbspare0000000000001", "alice", "attic"),  // no such home
    ]

    static func single(_ registry: Registry, _ row: (device: String, account: String, home: String)) -> String {
        do {
            let outcome = try registry.bindings.bind(
                BindCommand(deviceID: try DeviceID(row.device), account: row.account, home: row.home, source: .csv)
            )
            return outcome.status.rawValue
        } catch let error as NBGWError {
            return error.code.rawValue
        } catch {
            return "\(error)"
        }
    }

    static func chunked(
        _ registry: Registry,
        _ row: (device: String, account: String, home: String),
        line: Int
    )
        throws -> String
    {
        let input = Registry.BatchInput.driven(at: "/nonexistent/in-\(line).csv")
        return try registry.bindings.withBatchSession(dryRun: false) { session in
            let job = try session.openJob(input, restart: false)
            let outcomes = try session.bindChunk(
                [BatchRow(line: line, device: .id(row.device), accountName: row.account, homeName: row.home)],
                operator: nil
            ) { _ in (job, true) }
            switch outcomes[0] {
            case .bound: return "bound"
            case .unchanged: return "unchanged"
            case .refused(let error, _): return error.code.rawValue
            }
        }
    }

    @Test("Every rule gives the same outcome and code on both paths")
    func sameOutcomes() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nbgw-chunk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (index, row) in Self.cases.enumerated() {
            // Fresh stores per case: each case starts from the same facts.
            let single = Self.single(try Self.store(directory, "single-\(index).sqlite"), row)
            let chunked = try Self.chunked(try Self.store(directory, "chunk-\(index).sqlite"), row, line: index + 2)
            #expect(single == chunked, "case \(index): \(row)")
        }
        // The cases reach every outcome, or the comparison proves little.
        let seen = Set(
            try Self.cases.enumerated().map { index, row in
                try Self.chunked(try Self.store(directory, "seen-\(index).sqlite"), row, line: index + 2)
            }
        )
        #expect(seen.isSuperset(of: ["bound", "unchanged", "DEVICE_ALREADY_BOUND", "UNKNOWN_DEVICE"]))
        #expect(seen.count >= 7)
    }

    @Test("A device named twice in one chunk: the first line binds, the second is DUPLICATE_IN_FILE")
    func duplicateInChunk() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nbgw-chunk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let registry = try Self.store(directory, "dup.sqlite")
        let input = Registry.BatchInput.driven(at: directory.appendingPathComponent("in.csv").path)
        let outcomes = try registry.bindings.withBatchSession(dryRun: false) { session in
            let job = try session.openJob(input, restart: false)
            return try session.bindChunk(
                [
                    BatchRow(line: 2, device: .id("nbtracker00000000001"), accountName: "alice", homeName: "lab"),
                    BatchRow(
                        line: 3,
                        device: .labelCode("TRACK0000001"),
                        accountName: "alice",
                        homeName: "lab"
                    ),
                ],
                operator: "op"
            ) { _ in (job, true) }
        }
        #expect(outcomes[0] == .bound(deviceID: "nbtracker00000000001"))
        guard case .refused(let error, let deviceID) = outcomes[1] else {
            Issue.record("expected a refusal, got \(outcomes[1])")
            return
        }
        #expect(error.code == .duplicateInFile && deviceID == "nbtracker00000000001")
        #expect(try registry.bindings.find(deviceID: "nbtracker00000000001")?.account == "alice")
    }
}
