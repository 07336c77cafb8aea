import Foundation
import Registry
import Synchronization
import Testing

@testable import Daemon

#if canImport(Glibc)
import Glibc
#endif

/// `/healthz` and `nbgw_store_up` say a store is usable only when a bind could be written now: not
/// while another process holds its write lock, not on a filesystem without room (security review
/// F15: both said "ok").
@Suite("store health: writable, or 503 with the reason", .serialized, .timeLimit(.minutes(3)))
struct DaemonStoreHealthTests {
    @Test("the probe asks the store at most once a second on the injected clock; callers in between share it")
    func probeIsCached() {
        let now = Mutex(Duration.zero)
        let asked = Mutex(0)
        let probe = StoreWritabilityProbe(now: { now.withLock { $0 } }) {
            let count = asked.withLock { count in
                count += 1
                return count
            }
            return StoreWritability(
                state: count.isMultiple(of: 2) ? .locked : .writable,
                path: "/var/lib/nbgw/nbgw.sqlite",
                freeBytes: 1 << 30,
                minimumFreeBytes: 64 << 20,
                waited: .milliseconds(200)
            )
        }
        #expect(probe.current().state == .writable)
        for _ in 0..<50 { #expect(probe.current().state == .writable) }
        now.withLock { $0 = .milliseconds(999) }
        #expect(probe.current().state == .writable)
        #expect(asked.withLock { $0 } == 1, "asked once within the second")
        now.withLock { $0 = .seconds(1) }
        #expect(probe.current().state == .locked, "a second later the store is asked again")
        #expect(asked.withLock { $0 } == 2)
        // A clock that goes back (a restarted test clock) does not pin the old answer.
        now.withLock { $0 = .zero }
        #expect(probe.current().state == .writable)
        #expect(asked.withLock { $0 } == 3)
    }

    /// `sqlite3 STORE` as another process, holding `BEGIN EXCLUSIVE` until ``release()``.
    final class LockHolder {
        let process = Process()
        let input = Pipe()
        let output = Pipe()

        init(store: String) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
            process.arguments = [store]
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            input.fileHandleForWriting.write(
                Data("PRAGMA busy_timeout = 10000;\nBEGIN EXCLUSIVE;\nSELECT 'held';\n".utf8)
            )
            // Held once it says so.
            var said = Data()
            while !String(decoding: said, as: UTF8.self).contains("held") {
                let chunk = output.fileHandleForReading.availableData
                guard !chunk.isEmpty else { throw CocoaError(.fileReadUnknown) }
                said.append(chunk)
            }
        }

        func release() {
            input.fileHandleForWriting.write(Data("ROLLBACK;\n.quit\n".utf8))
            process.waitUntilExit()
        }

        deinit {
            if process.isRunning { process.terminate() }
        }
    }

    /// Polls `/healthz` until `predicate` holds for its status and JSON, or fails with the last answer.
    static func waitForHealth(
        _ daemon: DaemonProcess,
        _ what: String,
        timeout: Duration = .seconds(15),
        _ predicate: (Int, [String: Any]) -> Bool
    ) async throws -> (status: Int, report: [String: Any]) {
        let deadline = ContinuousClock.now + timeout
        var last: (Int, [String: Any]) = (0, [:])
        while ContinuousClock.now < deadline {
            let answer = try await daemon.get("/healthz")
            let report = (try? JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any]) ?? [:]
            last = (answer.status, report)
            if predicate(answer.status, report) { return last }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("timed out waiting for \(what); last /healthz: \(last.0) \(last.1)\n\(daemon.log)")
        return last
    }

    @Test("another process holding BEGIN EXCLUSIVE: /healthz 503 naming the lock, nbgw_store_up 0; 200 once released")
    func lockedStore() async throws {
        let directory = try TemporaryDirectory()
        let daemon = try DaemonProcess(
            config: DaemonProcess.config(ports: ["/dev/null"], store: directory.path("store.sqlite")),
            directory: directory
        )
        try await daemon.waitForReady()
        let healthy = try await daemon.get("/healthz")
        #expect(healthy.status == 200, "\(healthy.body)")

        let holder = try LockHolder(store: daemon.storePath)
        let locked = try await Self.waitForHealth(daemon, "503 while the lock is held") { status, _ in status == 503 }
        #expect(locked.report["status"] as? String == "unavailable")
        #expect(locked.report["storeReason"] as? String == "locked", "\(locked.report)")
        let message = locked.report["storeError"] as? String ?? ""
        #expect(message.contains("locked by another writer") && message.contains(daemon.storePath), "\(message)")
        let metrics = try await daemon.get("/metrics")
        #expect(metrics.body.contains("\nnbgw_store_up 0"), "\(metrics.body)")

        holder.release()
        let released = try await Self.waitForHealth(daemon, "200 after the release") { status, _ in status == 200 }
        #expect(released.report["storeReason"] == nil)
        #expect(try await daemon.get("/metrics").body.contains("\nnbgw_store_up 1"))
        daemon.send(SIGTERM)
        #expect(try await daemon.waitForExit(timeout: .seconds(15)) == 0)
    }

    @Test(
        "a store on a 32 MiB filesystem, under the 64 MiB its log may need: /healthz 503 disk_full, with the numbers",
        .enabled(if: geteuid() == 0, "mounting a tmpfs needs root")
    )
    func smallFilesystem() async throws {
        let directory = try TemporaryDirectory()
        let mount = directory.path("mnt")
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        guard StoreWritabilityTestsSupport.run("/bin/mount", "-t", "tmpfs", "-o", "size=32m", "tmpfs", mount) == 0
        else {
            Issue.record("cannot mount a tmpfs on \(mount)")
            return
        }
        defer { _ = StoreWritabilityTestsSupport.run("/bin/umount", "-l", mount) }
        let daemon = try DaemonProcess(
            config: DaemonProcess.config(ports: ["/dev/null"], store: mount + "/store.sqlite"),
            directory: directory
        )
        try await daemon.waitForReady()
        let full = try await Self.waitForHealth(daemon, "503 disk_full") { status, _ in status == 503 }
        #expect(full.report["storeReason"] as? String == "disk_full", "\(full.report)")
        let message = full.report["storeError"] as? String ?? ""
        #expect(message.contains("64 MiB") && message.contains("free disk space"), "\(message)")
        #expect(try await daemon.get("/metrics").body.contains("\nnbgw_store_up 0"))
        daemon.send(SIGTERM)
        #expect(try await daemon.waitForExit(timeout: .seconds(15)) == 0)
    }
}

enum StoreWritabilityTestsSupport {
    static func run(_ arguments: String...) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
