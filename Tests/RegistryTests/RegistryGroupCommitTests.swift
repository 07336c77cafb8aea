import DeviceIdentity
import Dispatch
import Foundation
import GRDB
import NBGWCore
import Testing

@testable import Registry

@Suite("Registry: binds committed in groups give each caller a lone bind's result")
struct RegistryGroupCommitTests {
    typealias Fixture = RegistryBindingTests.Fixture

    /// Another connection to the store that may keep a transaction open across accesses (another
    /// process holding the write lock, as far as the registry can tell).
    static func lockHolder(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    /// Runs `sql` on `queue` synchronously (never on the writer of the registry under test).
    static func execute(_ queue: DatabaseQueue, _ sql: String) throws {
        try queue.writeWithoutTransaction { db in try db.execute(sql: sql) }
    }

    static func command(_ deviceID: String, _ account: String, _ home: String, token: String? = nil) -> BindCommand {
        BindCommand(deviceID: try! DeviceID(deviceID), account: account, home: home, token: token, source: .http)
    }

    /// Submits `commands` while the queue is held, waits until all are queued, then lets the first
    /// lead them as one group; returns each caller's result in submission order.
    static func bindAsOneGroup(
        _ registry: Registry,
        _ commands: [BindCommand],
        timeout: Duration = .seconds(120)
    ) async -> [Result<BindOutcome, NBGWError>] {
        #expect(registry.bindQueue.hold())
        var tasks: [Task<Result<BindOutcome, NBGWError>, Never>] = []
        for command in commands {
            tasks.append(
                Task {
                    do throws(NBGWError) {
                        return .success(try await registry.bindings.bindInGroup(command, timeout: timeout).change)
                    } catch {
                        return .failure(error)
                    }
                }
            )
            // In order: each task is queued before the next starts.
            while registry.bindQueue.waitingCount < tasks.count { await Task.yield() }
        }
        registry.bindQueue.resumeHeld()
        var results: [Result<BindOutcome, NBGWError>] = []
        for task in tasks { results.append(await task.value) }
        return results
    }

    /// A bind with a 30 s budget, in a task of its own; its status.
    static func bindTask(_ registry: Registry, _ command: BindCommand) -> Task<BindOutcome.Status, any Error> {
        Task { try await registry.bindings.bindInGroup(command, timeout: .seconds(30)).change.status }
    }

    /// Waits (up to 10 s) until a second group has been taken and nothing waits in the queue: the
    /// group that found the lock taken went back and was taken again to wait for it.
    static func waitUntilTakenToWait(_ registry: Registry) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while registry.bindQueue.totals.groups < 2 || registry.bindQueue.waitingCount > 0,
            ContinuousClock.now < deadline
        {
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    @Test("A savepoint journal of 160 KiB on the writer stays in memory: no temporary file is opened for it")
    func savepointJournalsStayInMemory() throws {
        let fixture = try Fixture()
        // SQLITE_OK: applied when the test binary loaded, before any connection (CSQLiteSettings).
        #expect(Registry.memoryStatisticsOff == 0)
        // 2 is MEMORY (Registry.keepStatementJournalsInMemory); readers keep the default.
        #expect(try fixture.registry.pool.write { db in try Int.fetchOne(db, sql: "PRAGMA temp_store") } == 2)
        #expect(try fixture.registry.pool.read { db in try Int.fetchOne(db, sql: "PRAGMA temp_store") } == 0)
        try fixture.registry.pool.write { db in
            try db.execute(sql: "CREATE TABLE spill_probe (x BLOB NOT NULL) STRICT")
            // 40 rows of 4000 bytes: one page each.
            for _ in 0..<40 { try db.execute(sql: "INSERT INTO spill_probe VALUES (zeroblob(4000))") }
        }
        let temporaryFiles = try fixture.registry.pool.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN IMMEDIATE")
            defer { try? db.execute(sql: "ROLLBACK") }
            try db.execute(sql: "SAVEPOINT probe")
            // Rewrites all 40 pages: the savepoint journals their originals, 160 KiB, past SQLite's
            // default spill size (64 KiB).
            try db.execute(sql: "UPDATE spill_probe SET x = zeroblob(4001)")
            return Self.openTemporaryFiles()
        }
        #expect(temporaryFiles == 0)
    }

    /// SQLite's temporary files this process has open (they are unlinked at once: `etilqs_… (deleted)`).
    static func openTemporaryFiles() -> Int {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.filter { descriptor in
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")
            return target?.contains("etilqs_") == true
        }.count
    }

    @Test("64 concurrent binds of distinct devices commit as one group and all are stored")
    func distinctDevicesShareOneCommit() async throws {
        let f = try Fixture()
        var commands: [BindCommand] = []
        for index in 0..<64 {
            let body = String(format: "35000000%06d", index)
            let imei = try IMEI(body + String(Luhn.checkDigit(for: body)))
            let device = try #require(
                try f.registry.directory.recordRegistration(
                    ModuleIdentity(imei: imei, productID: "meter"),
                    deviceID: try! DeviceID(String(format: "dev-group-%02d", index)),
                    labelCode: String(format: "LABELGRP%04d", index),
                    minted: true
                )
            ).device
            commands.append(Self.command(device.deviceID, "alice", "alice-home"))
        }
        let before = f.registry.bindQueue.totals
        let results = await Self.bindAsOneGroup(f.registry, commands)
        #expect(results.allSatisfy { (try? $0.get().status) == .bound })
        let after = f.registry.bindQueue.totals
        #expect(after.groups - before.groups == 1)
        #expect(after.binds - before.binds == 64)
        #expect(try f.registry.bindings.list(account: "alice").count == 64)
        #expect(try f.registry.audit.entries().filter { $0.event == "bind" }.count == 64)
    }

    @Test("Two owners binding one device in the same group: the first wins, the second is refused and audited")
    func sameDeviceTwiceInOneGroup() async throws {
        let f = try Fixture()
        let results = await Self.bindAsOneGroup(
            f.registry,
            [
                Self.command(f.meter.deviceID, "alice", "alice-home"),
                Self.command(f.meter.deviceID, "bob", "bob-meters"),
            ]
        )
        #expect((try? results[0].get().status) == .bound)
        #expect(results[1].failureCode == .deviceAlreadyBound)
        #expect(try f.registry.bindings.find(deviceID: f.meter.deviceID)?.account == "alice")
        let events = try f.registry.audit.entries(deviceID: f.meter.deviceID).map { "\($0.event):\($0.code ?? "")" }
        #expect(events.sorted() == ["bind:", "bind_rejected:DEVICE_ALREADY_BOUND", "register:"])
    }

    @Test("A refused bind in the middle of a group rolls back only itself")
    func refusalRollsBackOnlyItself() async throws {
        let f = try Fixture()
        let token = try f.registry.directory.createToken(home: "alice-home")
        let results = await Self.bindAsOneGroup(
            f.registry,
            [
                Self.command(f.meter.deviceID, "alice", "alice-home", token: token.token),
                // The token died with the bind before: refused after its own statements ran.
                Self.command(f.tracker.deviceID, "alice", "alice-home", token: token.token),
                Self.command(f.tracker.deviceID, "mallory", "alice-home"),
                Self.command(f.tracker.deviceID, "alice", "alice-home"),
            ]
        )
        #expect((try? results[0].get().status) == .bound)
        #expect(results[1].failureCode != nil)
        #expect(results[2].failureCode == .unknownAccount)
        #expect((try? results[3].get().status) == .bound)
        #expect(try f.registry.bindings.list().count == 2)
        #expect(try f.registry.directory.token(token.token)?.usedByDevice == f.meter.deviceID)
        #expect(try f.registry.audit.entries().filter { $0.event == "bind_rejected" }.count == 2)
    }

    @Test("A group's result equals the lone bind's for the same sequence of commands")
    func groupMatchesLoneBinds() async throws {
        let grouped = try Fixture()
        let lone = try Fixture()
        let token = try grouped.registry.directory.createToken(home: "alice-home")
        let loneToken = try lone.registry.directory.createToken(home: "alice-home")
        func commands(_ f: Fixture, _ token: String) -> [BindCommand] {
            [
                Self.command(f.meter.deviceID, "alice", "alice-home", token: token),
                Self.command(f.meter.deviceID, "alice", "alice-home"),
                Self.command(f.meter.deviceID, "bob", "bob-meters"),
                Self.command(f.tracker.deviceID, "bob", "bob-meters"),
                Self.command(f.tracker.deviceID, "gus", "alice-home"),
                // Unknown names and another owner's home: the group reads each account and home
                // once (OwnerFacts), and a miss must stay a miss for the binds after it.
                Self.command(f.tracker.deviceID, "mallory", "alice-home"),
                Self.command(f.tracker.deviceID, "alice", "nowhere"),
                Self.command(f.tracker.deviceID, "bob", "alice-home"),
                Self.command(f.tracker.deviceID, "alice", "alice-home", token: token),
                Self.command(f.tracker.deviceID, "alice", "alice-home"),
            ]
        }
        let groupedResults = await Self.bindAsOneGroup(grouped.registry, commands(grouped, token.token))
        var loneResults: [Result<BindOutcome, NBGWError>] = []
        for command in commands(lone, loneToken.token) {
            do throws(NBGWError) {
                loneResults.append(.success(try lone.registry.bindings.bind(command)))
            } catch {
                loneResults.append(.failure(error))
            }
        }
        #expect(groupedResults.map(\.summary) == loneResults.map(\.summary))
        #expect(
            try grouped.registry.audit.entries().map { "\($0.event):\($0.code ?? "")" }
                == lone.registry.audit.entries().map { "\($0.event):\($0.code ?? "")" }
        )
    }

    @Test("A bind whose budget ran out while queued is not attempted: TIMEOUT, nothing written")
    func expiredBudgetInQueue() async throws {
        let f = try Fixture()
        let results = await Self.bindAsOneGroup(
            f.registry,
            [Self.command(f.meter.deviceID, "alice", "alice-home")],
            timeout: .zero
        )
        #expect(results[0].failureCode == .timeout)
        #expect(try f.registry.bindings.list().isEmpty)
        #expect(try f.registry.audit.entries().filter { $0.event.hasPrefix("bind") }.isEmpty)
    }

    @Test("Another process holding the write lock past the budget: every bind of the group is TIMEOUT")
    func lockedStoreTimesOutTheGroup() async throws {
        let f = try Fixture()
        let other = try Self.lockHolder(f.store.path)
        try Self.execute(other, "BEGIN IMMEDIATE")
        let results = await Self.bindAsOneGroup(
            f.registry,
            [
                Self.command(f.meter.deviceID, "alice", "alice-home"),
                Self.command(f.tracker.deviceID, "alice", "alice-home"),
            ],
            timeout: .milliseconds(200)
        )
        try Self.execute(other, "ROLLBACK")
        #expect(results.map(\.failureCode) == [.timeout, .timeout])
        #expect(try f.registry.bindings.list().isEmpty)
        // The writer is usable again at once.
        let after = try await f.registry.bindings.bindInGroup(Self.command(f.meter.deviceID, "alice", "alice-home"))
        #expect(after.change.status == .bound)
    }

    @Test("A short budget times out behind another process's lock while a longer one in its group waits and binds")
    func longerBudgetWaitsPastAShortOne() async throws {
        let f = try Fixture()
        let other = try Self.lockHolder(f.store.path)
        try Self.execute(other, "BEGIN IMMEDIATE")
        #expect(f.registry.bindQueue.hold())
        // Why 1 s: long enough that the short bind is still live when its group starts on a busy
        // machine, so the group's lock wait is bounded by it and the long bind is put back.
        let short = Task { () -> ErrorCode? in
            do throws(NBGWError) {
                _ = try await f.registry.bindings.bindInGroup(
                    Self.command(f.meter.deviceID, "alice", "alice-home"),
                    timeout: .seconds(1)
                )
                return nil
            } catch {
                return error.code
            }
        }
        while f.registry.bindQueue.waitingCount < 1 { await Task.yield() }
        let long = Task {
            try await f.registry.bindings.bindInGroup(
                Self.command(f.tracker.deviceID, "alice", "alice-home"),
                timeout: .seconds(30)
            ).change.status
        }
        while f.registry.bindQueue.waitingCount < 2 { await Task.yield() }
        f.registry.bindQueue.resumeHeld()
        #expect(await short.value == .timeout)
        // The short bind has given up; the long one waits for the lock in a group of its own.
        try Self.execute(other, "ROLLBACK")
        #expect(try await long.value == .bound)
        #expect(try f.registry.bindings.list().map(\.deviceID) == [f.tracker.deviceID])
        #expect(f.registry.bindQueue.totals.groups >= 2)
    }

    @Test("A group that finds another process's write lock goes back at once, then waits off the pool and binds")
    func lockWaitLeavesTheCooperativePoolFree() async throws {
        let f = try Fixture()
        let other = try Self.lockHolder(f.store.path)
        try Self.execute(other, "BEGIN IMMEDIATE")
        let bind = Self.bindTask(f.registry, Self.command(f.meter.deviceID, "alice", "alice-home"))
        // The first group tries the lock without waiting and goes back to the queue; the second is
        // taken by a dispatch thread to wait for the lock. A leader that waited on its own
        // (cooperative) thread would stay in its first group for the whole 30 s budget.
        try await Self.waitUntilTakenToWait(f.registry)
        #expect(f.registry.bindQueue.totals.groups == 2)
        #expect(f.registry.bindQueue.waitingCount == 0)
        try Self.execute(other, "ROLLBACK")
        #expect(try await bind.value == .bound)
        #expect(try f.registry.bindings.list().map(\.deviceID) == [f.meter.deviceID])
    }

    @Test("A leader cancelled while its group waits for another process's lock still binds and answers its group")
    func cancelledLeaderStillCommits() async throws {
        let f = try Fixture()
        let other = try Self.lockHolder(f.store.path)
        try Self.execute(other, "BEGIN IMMEDIATE")
        #expect(f.registry.bindQueue.hold())
        let leader = Self.bindTask(f.registry, Self.command(f.meter.deviceID, "alice", "alice-home"))
        while f.registry.bindQueue.waitingCount < 1 { await Task.yield() }
        let follower = Self.bindTask(f.registry, Self.command(f.tracker.deviceID, "alice", "alice-home"))
        while f.registry.bindQueue.waitingCount < 2 { await Task.yield() }
        f.registry.bindQueue.resumeHeld()
        // Both are taken a second time, to wait for the lock; then the leader's task is cancelled.
        try await Self.waitUntilTakenToWait(f.registry)
        leader.cancel()
        try Self.execute(other, "ROLLBACK")
        #expect(try await leader.value == .bound)
        #expect(try await follower.value == .bound)
        #expect(Set(try f.registry.bindings.list().map(\.deviceID)) == [f.meter.deviceID, f.tracker.deviceID])
    }
}

extension Result where Failure == NBGWError {
    var failureCode: ErrorCode? {
        if case .failure(let error) = self { return error.code }
        return nil
    }
}

extension Result where Success == BindOutcome, Failure == NBGWError {
    /// Status and owner, or the error code: what a caller can observe of a bind.
    var summary: String {
        switch self {
        case .success(let outcome): "\(outcome.status.rawValue) \(outcome.binding.account)/\(outcome.binding.home)"
        case .failure(let error): error.code.rawValue
        }
    }
}
