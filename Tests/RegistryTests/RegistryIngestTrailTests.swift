import DeviceIdentity
import Foundation
import GRDB
import NBGWCore
import TestClocks
import Testing

@testable import Registry

@Suite("Registry: the ingest trail commits with the bind, and background WAL checkpoints")
struct RegistryIngestTrailTests {
    /// Owners alice (home lab) and bob (home bobs), one registered device.
    struct Fixture {
        let store: TestStore
        let clock = ManualWallClock()
        let registry: Registry
        let device: DeviceID
        let origin = BindCommand.IngestOrigin(apiKey: "scanner-1", clientAddress: "127.0.0.1:40000")

        init(walCheckpointing: Registry.WALCheckpointing = .automatic) throws {
            store = try TestStore()
            registry = try Registry(path: store.path, clock: clock, walCheckpointing: walCheckpointing)
            try registry.directory.addAccount(name: "alice", role: .owner)
            try registry.directory.addAccount(name: "bob", role: .owner)
            try registry.directory.addHome(name: "lab", owner: "alice")
            try registry.directory.addHome(name: "bobs", owner: "bob")
            device = try #require(
                try registry.directory.recordRegistration(
                    ModuleIdentity(imei: try IMEI("490154203237518")),
                    deviceID: try! DeviceID("dev-1"),
                    labelCode: "LABEL1",
                    minted: true
                )
            ).device.deviceID.asDeviceID
        }

        func command(
            _ account: String,
            _ home: String,
            token: String? = nil,
            origin: BindCommand.IngestOrigin? = nil
        ) -> BindCommand {
            BindCommand(
                deviceID: device,
                account: account,
                home: home,
                token: token,
                source: origin == nil ? .cli : .http,
                operator: origin?.apiKey ?? "op",
                ingest: origin
            )
        }
    }

    @Test("An ingest bind records its key and client address on its audit row, in its own transaction")
    func bindTrail() throws {
        let fixture = try Fixture()
        let bound = try fixture.registry.bindings.bind(fixture.command("alice", "lab", origin: fixture.origin))
        #expect(bound.status == .bound)
        fixture.clock.advance(by: 1)
        let unchanged = try fixture.registry.bindings.bind(fixture.command("alice", "lab", origin: fixture.origin))
        #expect(unchanged.status == .unchanged)
        fixture.clock.advance(by: 1)
        #expect(throws: NBGWError.self) {
            try fixture.registry.bindings.bind(fixture.command("bob", "bobs", origin: fixture.origin))
        }

        let audit = try fixture.registry.audit.entries(deviceID: "dev-1")
        let bindRow = try #require(audit.first { $0.event == "bind" })
        let rejectedRow = try #require(audit.first { $0.event == "bind_rejected" })
        #expect(bindRow.apiKey == "scanner-1" && bindRow.clientAddress == "127.0.0.1:40000")
        #expect(rejectedRow.apiKey == "scanner-1" && rejectedRow.clientAddress == "127.0.0.1:40000")
        let trail = try fixture.registry.audit.ingestTrail(deviceID: "dev-1")
        #expect(trail.map(\.event) == ["bind", "bind_unchanged", "bind_rejected"])
        #expect(trail.allSatisfy { $0.apiKey == "scanner-1" && $0.clientAddress == "127.0.0.1:40000" })
        // The bind's entry is its audit row: no ingest_audit row of its own.
        #expect(trail[0].id == nil && trail[0].auditID == bindRow.id)
        #expect(trail[0].account == "alice" && trail[0].home == "lab")
        #expect(trail[1].id != nil && trail[1].auditID == nil)
        #expect(trail[2].id != nil && trail[2].auditID == rejectedRow.id)
        #expect(trail[2].code == "DEVICE_ALREADY_BOUND")
        #expect(trail[2].account == "bob" && trail[2].home == "bobs")
        #expect(trail[2].message?.isEmpty == false)
        let rows = try fixture.registry.pool.read { db in
            try String.fetchAll(db, sql: "SELECT event FROM ingest_audit ORDER BY id")
        }
        #expect(rows == ["bind_unchanged", "bind_rejected"])
    }

    @Test("Trail entries of one millisecond: those with an audit row first, each kind in its own order")
    func trailOrderWithinAMillisecond() throws {
        let fixture = try Fixture()
        _ = try fixture.registry.bindings.bind(fixture.command("alice", "lab", origin: fixture.origin))
        _ = try fixture.registry.bindings.bind(fixture.command("alice", "lab", origin: fixture.origin))
        #expect(throws: NBGWError.self) {
            try fixture.registry.bindings.bind(fixture.command("bob", "bobs", origin: fixture.origin))
        }
        let trail = try fixture.registry.audit.ingestTrail(deviceID: "dev-1")
        #expect(trail.map(\.event) == ["bind", "bind_rejected", "bind_unchanged"])
    }

    @Test("A bind recorded before migration v6 keeps its ingest_audit row and shows once in the trail")
    func trailOfABindFromBeforeV6() throws {
        let fixture = try Fixture()
        _ = try fixture.registry.bindings.bind(fixture.command("alice", "lab", origin: fixture.origin))
        let auditID = try #require(try fixture.registry.audit.entries(deviceID: "dev-1").last?.id)
        // What a bind wrote before v6: an ingest_audit row linked to its audit row.
        try fixture.registry.pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO ingest_audit (at, audit_id, event, api_key, client_address, device_id, account, home)
                    VALUES (?, ?, 'bind', 'scanner-1', '127.0.0.1:40000', 'dev-1', 'alice', 'lab')
                    """,
                arguments: [Int64(fixture.clock.now().timeIntervalSince1970 * 1000), auditID]
            )
        }
        let trail = try fixture.registry.audit.ingestTrail()
        #expect(trail.count == 1)
        #expect(trail.first?.id != nil && trail.first?.auditID == auditID)
    }

    @Test("Binds without an ingest origin (CLI, CSV, daemon) write no trail row")
    func noOriginNoTrail() throws {
        let fixture = try Fixture()
        _ = try fixture.registry.bindings.bind(fixture.command("alice", "lab"))
        #expect(throws: NBGWError.self) { try fixture.registry.bindings.bind(fixture.command("bob", "bobs")) }
        #expect(try fixture.registry.audit.ingestTrail().isEmpty)
        #expect(
            try fixture.registry.audit.entries(deviceID: "dev-1").map(\.event) == ["register", "bind", "bind_rejected"]
        )
    }

    @Test("A trail row the schema refuses rolls the whole bind back: no change without its trail")
    func atomic() throws {
        let fixture = try Fixture()
        // audit_log.api_key has CHECK (length BETWEEN 1 AND 64) (migration v6).
        let tooLong = BindCommand.IngestOrigin(apiKey: String(repeating: "k", count: 65), clientAddress: "x")
        #expect(throws: NBGWError.self) {
            try fixture.registry.bindings.bind(fixture.command("alice", "lab", origin: tooLong))
        }
        #expect(try fixture.registry.bindings.find(deviceID: "dev-1") == nil)
        #expect(try fixture.registry.audit.entries(deviceID: "dev-1").filter { $0.event == "bind" }.isEmpty)
        #expect(try fixture.registry.audit.ingestTrail().isEmpty)
    }

    @Test("A bind with a pairing token records the token's row id, never the token")
    func tokenTrail() throws {
        let fixture = try Fixture()
        let token = try fixture.registry.directory.createToken(
            home: "lab",
            operator: "scanner-1",
            ingest: fixture.origin
        )
        _ = try fixture.registry.bindings.bind(
            fixture.command("alice", "lab", token: token.token, origin: fixture.origin)
        )
        let trail = try fixture.registry.audit.ingestTrail()
        #expect(trail.map(\.event) == ["token_create", "bind"])
        let tokenAudit = try #require(try fixture.registry.audit.entries().last { $0.event == "token_create" })
        #expect(trail[0].auditID == tokenAudit.id)
        #expect(trail[0].home == "lab")
        let result = try #require(try fixture.registry.audit.pairingResult(token: token.token))
        #expect(result.binding?.deviceID == "dev-1")
        let stored = try fixture.registry.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM ingest_audit")
        }
        #expect(
            stored.allSatisfy { row in row.databaseValues.allSatisfy { String.fromDatabaseValue($0) != token.token } }
        )
        let tokenIDs = Set(stored.compactMap { $0["token_id"] as Int64? })
        #expect(tokenIDs.count == 1)
    }

    @Test("Tokens are 20 base62 characters and do not repeat")
    func tokens() {
        let tokens = (0..<2000).map { _ in Registry.generateToken() }
        #expect(Set(tokens).count == tokens.count)
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        #expect(tokens.allSatisfy { $0.count == 20 && $0.allSatisfy(alphabet.contains) })
        // Every letter shows up (40 000 draws of 62 letters): no letter is unreachable.
        #expect(Set(tokens.joined()) == alphabet)
    }

    @Test("Background checkpoints: the writer stops checkpointing in commits; the checkpointer copies the log back")
    func backgroundCheckpoints() throws {
        let automatic = try Fixture()
        #expect(!automatic.registry.checkpointsInBackground)
        #expect(try autocheckpoint(automatic.registry) == 1000)

        let fixture = try Fixture(walCheckpointing: .background(every: .seconds(3600)))
        #expect(fixture.registry.checkpointsInBackground)
        #expect(try autocheckpoint(fixture.registry) == 0)
        // Idempotent: a second request keeps the running checkpointer.
        try fixture.registry.checkpointInBackground(every: .milliseconds(5))
        #expect(try autocheckpoint(fixture.registry) == 0)

        // Enough commits to pass SQLite's 1000-page automatic threshold: nothing is copied back.
        for index in 0..<300 {
            _ = try fixture.registry.directory.createToken(home: index.isMultiple(of: 2) ? "lab" : "bobs")
        }
        let before = try #require(fixture.registry.checkpointer.tickNow())
        #expect(before.logFrames > 1000)
        #expect(before.checkpointed == before.logFrames)
        // The log restarts from its beginning after a complete checkpoint.
        _ = try fixture.registry.directory.createToken(home: "lab")
        let after = try #require(fixture.registry.checkpointer.tickNow())
        #expect(after.logFrames < 100)
    }

    @Test("A log still over the restart threshold after a pass gets the writer-side restart point")
    func restartPoint() throws {
        let fixture = try Fixture()
        let checkpointer = BackgroundCheckpointer(path: fixture.store.path, restartFrames: 20)
        let calls = CallCount()
        let pool = fixture.registry.pool
        let started = try checkpointer.start(every: .seconds(3600)) {
            calls.add()
            pool.writeWithoutTransaction { db in _ = BackgroundCheckpointer.passive(db.sqliteConnection) }
        }
        #expect(started)
        for _ in 0..<10 { _ = try fixture.registry.directory.createToken(home: "lab") }
        let pass = try #require(checkpointer.tickNow())
        #expect(pass.logFrames >= 20)
        #expect(calls.value == 1)
        _ = try fixture.registry.directory.createToken(home: "lab")
        let next = try #require(checkpointer.tickNow())
        #expect(next.logFrames < 20, "the log restarted after the restart point")
        #expect(calls.value == 1)
    }

    func autocheckpoint(_ registry: Registry) throws -> Int {
        try registry.pool.writeWithoutTransaction { db in
            try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint") ?? -1
        }
    }
}

final class CallCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add() { lock.withLock { count += 1 } }
}

extension String {
    fileprivate var asDeviceID: DeviceID { try! DeviceID(self) }
}

@Suite("Registry: the entity-name fast path agrees with the general rule")
struct EntityNameTests {
    @Test("Names the fast path accepts or refuses get the general rule's verdict")
    func agreement() {
        let names = [
            "alice", "lab", "Bob's home", "a", String(repeating: "x", count: 64), String(repeating: "x", count: 65),
            "", " lab", "lab ", " ", "two  spaces", "tab\tinside", "new\nline", "\u{7F}", "caf\u{E9}", "\u{A0}lab",
            "lab\u{3000}", "emoji 😀", "\u{85}", "~!@#$%^&*()_+{}|:\"<>?`-=[]\\;',./",
        ]
        for name in names {
            let fast = Result { () throws(NBGWError) in try Registry.validateEntityName(name, what: "name") }
            let general = Result { () throws(NBGWError) in try Registry.validateName(name, what: "name") }
            let fastAccepts = (try? fast.get()) != nil
            let generalAccepts = (try? general.get()) != nil
            #expect(fastAccepts == generalAccepts, "\(name.debugDescription)")
            if case .failure(let fastError) = fast, case .failure(let generalError) = general {
                #expect(fastError == generalError)
            }
        }
    }
}
