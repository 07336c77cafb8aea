import Cloud
import DeviceIdentity
import Foundation
import NBGWCore
import Provisioning
import Registry
import TestPostgres
import Testing
import TuyaCloud

/// A node stopped (SIGSTOP: a frozen VM, a process stuck in swap) in the middle of a bind's
/// transaction keeps that transaction open, with its rows written and not committed. The other
/// nodes' requests on those rows must wait for it, not answer around it, and go on once the
/// frozen node is killed.
///
/// Freezing a node at that point, deterministically: a bind's transaction claims its key, reads
/// the token and the device, then writes the binding, the token's use, the pairing outcome, the
/// event and the key's answer in one statement, whose last step is the binding's foreign-key check
/// on the device's row. A `psql` session holds that row, so the statement waits there with every
/// row written; the node is frozen while it waits; the session lets go, the statement completes,
/// and the transaction stays "idle in transaction", nothing committed, behind a client that can
/// no longer send its COMMIT.
extension FleetCrashTests {
    @Test(
        "A node frozen (SIGSTOP) inside an uncommitted bind: another gateway's bind of that device through the other node waits, then wins once the frozen node is killed"
    )
    func frozenNodeHoldsADuplicateBind() async throws {
        // A cluster of its own: the frozen transaction holds back every database's event stream.
        try await FleetFixture.withPrivateCluster(durable: false, nodes: 2) { fleet in
            let (frozen, other) = (fleet.nodes[0], fleet.nodes[1])
            let retries = RetryPolicy(maxAttempts: 2, initialDelay: .milliseconds(50), maximumDelay: .milliseconds(100))
            let a = try FleetGateway(
                name: "a",
                credentials: try await fleet.addGateway("a"),
                baseURL: frozen.baseURL,
                directory: fleet.directory,
                retries: retries
            )
            let b = try FleetGateway(
                name: "b",
                credentials: try await fleet.addGateway("b"),
                baseURL: other.baseURL,
                directory: fleet.directory,
                retries: retries
            )
            defer {
                Task {
                    await a.shutdown()
                    await b.shutdown()
                }
            }
            try a.addAccount("alice")
            try b.addAccount("bob")
            let imei = try IMEI(FleetIMEIs.make(1, base: 35_693_803_600_000)[0])
            let device = try await a.registrar.register(ModuleIdentity(imei: imei)).device.deviceID
            #expect(try await b.registrar.register(ModuleIdentity(imei: imei)).device.deviceID == device)
            _ = try a.bindQueued(device, account: "alice")
            _ = try b.bindQueued(device, account: "bob")

            let holder = try await Self.holdDevice(device, fleet)
            let first = Task { await OutboxDrainer(sender: a.fastSender()).drain() }
            let backend = try await Self.freezeWhenWaiting(fleet, frozen, holder: holder)

            // b's bind of the same device through the other node waits on the frozen binding row.
            let second = Task { await OutboxDrainer(sender: b.fastSender()).drain() }
            try await FleetFixture.waitUntil("b's bind waiting on the frozen transaction", within: .seconds(10)) {
                try await Self.waitingOn(backend, fleet).hasPrefix(Self.bindStatement)
            }
            try await Task.sleep(for: .seconds(2))
            #expect(
                try await Self.waitingOn(backend, fleet).hasPrefix(Self.bindStatement),
                "still waiting after 2 s"
            )
            #expect(try Self.bindRow(b).state == .inflight, "b got no answer while the frozen transaction is open")

            let killed = ContinuousClock.now
            await frozen.kill()
            let gone = try await FleetFixture.waitUntil(
                "PostgreSQL ends the killed node's session",
                within: .seconds(10)
            ) {
                try await fleet.count("SELECT count(*) FROM pg_stat_activity WHERE pid = \(backend)") == 0
            }
            let report = await second.value
            let answered = ContinuousClock.now - killed
            #expect(report.sent == 1, "b's bind went through: \(report)")
            #expect(answered < .seconds(5), "b's bind answered \(answered) after the kill")

            // The right single owner, one event, b's token used and a's not.
            #expect(try Self.bindRow(b).state == .done)
            #expect(try await fleet.sql("SELECT uid || ' ' || gateway FROM binding") == "bob b")
            #expect(try await fleet.sql("SELECT gateway FROM event WHERE kind = 'bound'") == "b")
            #expect(try await fleet.sql("SELECT uid FROM pairing_token WHERE used_at IS NOT NULL") == "bob")
            #expect(
                try await fleet.count("SELECT count(*) FROM pairing_token WHERE uid = 'alice' AND used_at IS NULL") == 1
            )

            // a's client got a failure it retries, not an answer: its row is pending, not dead or done.
            let firstReport = await first.value
            #expect(firstReport.sent == 0 && firstReport.dead == 0, "\(firstReport)")
            let pending = try Self.bindRow(a)
            #expect(pending.state == .pending, "a's row: \(pending.state) \(pending.lastError ?? "")")
            // Sent again through the other node, it is refused for good, naming the owner.
            #expect(
                try await a.drainUntilSettled(within: .seconds(20), via: a.adapter(at: other.baseURL), owner: "a-retry")
            )
            let dead = try Self.bindRow(a)
            #expect(dead.state == .dead)
            #expect(
                dead.lastError?.contains("bound \"to account bob through gateway b\" (cloud code 3002)") == true,
                "\(dead.lastError ?? "")"
            )
            #expect(try await fleet.count("SELECT count(*) FROM binding") == 1)
            #expect(try await fleet.count("SELECT count(*) FROM event WHERE kind = 'bound'") == 1)
            #expect(try await fleet.count("SELECT count(*) FROM event WHERE kind = 'conflict'") == 1)
            print(
                "FleetCrashTests: killed node's session ended after \(gone); the waiting bind answered after "
                    + "\(answered); the frozen node's gateway was told: \(pending.lastError ?? "-")"
            )
        }
    }

    @Test(
        "A node frozen (SIGSTOP) inside an uncommitted bind: the gateway's retry under the same key through the other node waits on the key, then binds once when the frozen node is killed"
    )
    func frozenNodeHoldsAnIdempotencyClaim() async throws {
        try await FleetFixture.withPrivateCluster(durable: false, nodes: 2) { fleet in
            let (frozen, other) = (fleet.nodes[0], fleet.nodes[1])
            let retries = RetryPolicy(maxAttempts: 2, initialDelay: .milliseconds(50), maximumDelay: .milliseconds(100))
            let a = try FleetGateway(
                name: "a",
                credentials: try await fleet.addGateway("a"),
                baseURL: frozen.baseURL,
                directory: fleet.directory,
                retries: retries
            )
            defer { Task { await a.shutdown() } }
            try a.addAccount("alice")
            let imei = try IMEI(FleetIMEIs.make(1, base: 35_693_803_700_000)[0])
            let device = try await a.registrar.register(ModuleIdentity(imei: imei)).device.deviceID
            _ = try a.bindQueued(device, account: "alice")
            let key = try Self.bindRow(a).idempotencyKey

            let holder = try await Self.holdDevice(device, fleet)
            let first = Task { await OutboxDrainer(sender: a.fastSender()).drain() }
            let backend = try await Self.freezeWhenWaiting(fleet, frozen, holder: holder)

            // The gateway stops waiting for the frozen node (the row's 2 s lease runs out) and sends
            // the row again through the other node, under the same key: it waits on the key's claim.
            // Its own lease is long, so that the first sender cannot take the row back meanwhile.
            let retry = Task {
                try await a.drainUntilSettled(
                    within: .seconds(30),
                    via: a.adapter(at: other.baseURL),
                    owner: "a-retry",
                    lease: .seconds(30)
                )
            }
            try await FleetFixture.waitUntil("the retry waiting on the frozen key", within: .seconds(10)) {
                try await Self.waitingOn(backend, fleet).hasPrefix(Self.claimStatement)
            }
            try await Task.sleep(for: .seconds(2))
            #expect(
                try await Self.waitingOn(backend, fleet).hasPrefix(Self.claimStatement),
                "still waiting after 2 s"
            )
            #expect(try Self.bindRow(a).state == .inflight, "no answer while the frozen transaction is open")

            let killed = ContinuousClock.now
            await frozen.kill()
            let gone = try await FleetFixture.waitUntil(
                "PostgreSQL ends the killed node's session",
                within: .seconds(10)
            ) {
                try await fleet.count("SELECT count(*) FROM pg_stat_activity WHERE pid = \(backend)") == 0
            }
            #expect(try await retry.value, "the row settled after the kill")
            let answered = ContinuousClock.now - killed
            #expect(answered < .seconds(5), "the retry answered \(answered) after the kill")
            _ = await first.value

            // Once: one binding, one event, the token of the first try replayed (no second one) and used.
            let row = try Self.bindRow(a)
            #expect(row.state == .done, "\(row.state) \(row.lastError ?? "")")
            #expect(row.result?.contains("\"status\":\"bound\"") == true, "\(row.result ?? "")")
            #expect(
                try await fleet.sql("SELECT uid || ' ' || gateway FROM binding WHERE device_id = '\(device)'")
                    == "alice a"
            )
            #expect(try await fleet.count("SELECT count(*) FROM event WHERE kind = 'bound'") == 1)
            #expect(try await fleet.count("SELECT count(*) FROM pairing_token") == 1)
            #expect(try await fleet.count("SELECT count(*) FROM pairing_token WHERE used_at IS NOT NULL") == 1)
            #expect(
                try await fleet.count(
                    "SELECT count(*) FROM idempotency WHERE key = '\(key).b1' AND response LIKE '%\"status\":\"bound\"%'"
                ) == 1
            )
            print(
                "FleetCrashTests: killed node's session ended after \(gone); the same-key retry answered after \(answered)"
            )
        }
    }

    /// The gateway's only bind row.
    static func bindRow(_ gateway: FleetGateway) throws -> Registry.OutboxEntry {
        try #require(try gateway.registry.outbox.entries(limit: 100).first { $0.operation == .bind })
    }

    /// A `psql` session holding the device's row (`FOR UPDATE`, for up to 50 s), once it holds it:
    /// the binding's foreign-key check, at the end of the bind's statement with every row written,
    /// waits on it. Why a row and not a table: a table lock would stop the statement in its Parse
    /// (a statement is prepared on a connection's first use), before it wrote anything.
    static func holdDevice(_ device: String, _ fleet: FleetFixture) async throws -> Task<Void, Never> {
        let holder = Task {
            // Cancelled by freezeWhenWaiting (pg_cancel_backend): psql then fails, as expected.
            _ = try? await fleet.sql(
                "BEGIN; SELECT 1 FROM device WHERE device_id = '\(device)' FOR UPDATE; SELECT pg_sleep(50); COMMIT"
            )
        }
        try await FleetFixture.waitUntil("psql holding the device's row", within: .seconds(10)) {
            try await fleet.count(
                "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'BEGIN; SELECT 1 FROM device%' AND wait_event = 'PgSleep'"
            ) == 1
        }
        return holder
    }

    /// How the statement that writes a bind begins (FleetStore's bind, one statement).
    static let bindStatement = "WITH bound AS ("
    /// How a pairing token's or a bind's first statement begins: the idempotency key's claim.
    static let claimStatement = "WITH claim AS ("

    /// Waits until `node`'s bind transaction waits on the held row, freezes the node, lets the
    /// table go and waits until the transaction's insert is done: it is then idle in transaction,
    /// its rows written and uncommitted, behind a frozen client. Returns its backend's pid.
    static func freezeWhenWaiting(
        _ fleet: FleetFixture,
        _ node: FleetNodeProcess,
        holder: Task<Void, Never>
    ) async throws -> Int {
        var backend = 0
        try await FleetFixture.waitUntil("node \(node.baseURL) waiting on its bind's statement", within: .seconds(20)) {
            let pid = try await fleet.sql(
                """
                SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
                AND query LIKE '\(Self.bindStatement)%'
                """
            )
            backend = Int(pid) ?? 0
            return backend != 0
        }
        node.child.signal(SIGSTOP)
        try await FleetFixture.waitUntil("node \(node.baseURL) stopped", within: .seconds(5)) { node.isStopped }
        _ = try await fleet.sql(
            """
            SELECT pg_cancel_backend(pid) FROM pg_stat_activity
            WHERE pid <> pg_backend_pid() AND query LIKE 'BEGIN; SELECT 1 FROM device%'
            """
        )
        await holder.value
        try await FleetFixture.waitUntil("the frozen node's transaction idle in transaction", within: .seconds(10)) {
            try await fleet.sql("SELECT state FROM pg_stat_activity WHERE pid = \(backend)") == "idle in transaction"
        }
        // What it holds uncommitted: the key's claim, the binding, the token's row.
        let held = try await fleet.sql(
            """
            SELECT string_agg(DISTINCT relation::regclass::text, ',' ORDER BY relation::regclass::text) FROM pg_locks
            WHERE pid = \(backend) AND relation::regclass::text IN ('binding', 'idempotency', 'pairing_token')
            AND mode = 'RowExclusiveLock'
            """
        )
        #expect(held == "binding,idempotency,pairing_token", "the frozen transaction holds \(held)")
        return backend
    }

    /// The statement of the backend waiting on `backend`'s transaction ("" when none waits).
    static func waitingOn(_ backend: Int, _ fleet: FleetFixture) async throws -> String {
        try await fleet.sql("SELECT query FROM pg_stat_activity WHERE \(backend) = ANY(pg_blocking_pids(pid))")
    }
}
