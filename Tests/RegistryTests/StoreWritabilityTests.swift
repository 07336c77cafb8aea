import Foundation
import GRDB
import Registry
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `Registry.writability`: whether a bind could be written now, on real files, a real lock held by
/// another connection, and real filesystems (security review F15: a store on a full disk, or locked
/// by another writer, still answered reads, and health said it was fine).
@Suite("Registry: the store's writability, probed without writing")
struct StoreWritabilityTests {
    @Test("a fresh store is writable, with its filesystem's free room; a removed one is not")
    func writable() throws {
        let store = try TestStore()
        let registry = try Registry(path: store.path)
        let verdict = registry.writability()
        #expect(verdict.state == .writable && verdict.isWritable && verdict.problem == nil, "\(verdict)")
        var info = statvfs()
        #expect(statvfs(store.path, &info) == 0)
        let free = UInt64(info.f_bavail) * UInt64(info.f_frsize)
        #expect(verdict.freeBytes.map { abs(Double($0) - Double(free)) < 64 * 1_048_576 } == true)
        #expect(verdict.minimumFreeBytes == Registry.minimumFreeBytes)
        #expect(verdict.minimumFreeBytes == 64 << 20)
        #expect(try registry.bindings.list().isEmpty, "the probe wrote nothing and broke nothing")

        try FileManager.default.removeItem(atPath: store.path)
        let removed = registry.writability()
        #expect(removed.state == .failed, "\(removed)")
        #expect(!FileManager.default.fileExists(atPath: store.path), "the probe does not create a store")
    }

    @Test(
        "another connection holding BEGIN EXCLUSIVE: locked after the probe's wait, naming the lock; writable again after"
    )
    func lockedByAnotherWriter() throws {
        let store = try TestStore()
        let registry = try Registry(path: store.path)
        let holder = try RegistryGroupCommitTests.lockHolder(store.path)
        try RegistryGroupCommitTests.execute(holder, "BEGIN EXCLUSIVE")
        let clock = ContinuousClock()
        let started = clock.now
        let verdict = registry.writability(wait: .milliseconds(150))
        let waited = started.duration(to: clock.now)
        #expect(verdict.state == .locked, "\(verdict)")
        #expect(waited >= .milliseconds(100), "it waited for the lock (\(waited))")
        let problem = try #require(verdict.problem)
        #expect(problem.contains("locked by another writer") && problem.contains(store.path), "\(problem)")
        #expect(problem.contains("150 ms"), "\(problem)")
        #expect(verdict.detail?.contains("locked") == true, "SQLite's words: \(verdict.detail ?? "")")
        try RegistryGroupCommitTests.execute(holder, "ROLLBACK")
        #expect(registry.writability().state == .writable)
    }

    @Test("less room than the threshold on the store's filesystem: disk_full with the real numbers")
    func belowTheThreshold() throws {
        let store = try TestStore()
        let registry = try Registry(path: store.path)
        let free = try #require(registry.writability().freeBytes)
        let threshold = free + (1 << 30)
        let verdict = registry.writability(minimumFreeBytes: threshold)
        #expect(verdict.state == .diskFull, "\(verdict)")
        #expect(verdict.minimumFreeBytes == threshold)
        let problem = try #require(verdict.problem)
        #expect(problem.contains(store.path) && problem.contains("free disk space"), "\(problem)")
        #expect(problem.contains("\(threshold >> 20) MiB"), "\(problem)")
        #expect(registry.writability(minimumFreeBytes: 0).state == .writable)
    }

    @Test("a store SQLite can only open read-only is read_only", .enabled(if: geteuid() != 0, "root writes any file"))
    func readOnlyFile() throws {
        let store = try TestStore()
        let registry = try Registry(path: store.path)
        chmod(store.path, 0o444)
        defer { chmod(store.path, 0o600) }
        let verdict = registry.writability()
        #expect(verdict.state == .readOnly, "\(verdict)")
        #expect(verdict.problem?.contains("read-only") == true)
    }

    @Test(
        "real filesystems: a read-only mount is read_only; a full 2 MiB tmpfs is disk_full while reads still work",
        .enabled(if: geteuid() == 0, "mounting a tmpfs needs root")
    )
    func realFilesystems() throws {
        let store = try TestStore()
        let mount = store.directory.appendingPathComponent("mnt").path
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        guard Self.run("/bin/mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", mount) == 0 else {
            Issue.record("cannot mount a tmpfs on \(mount)")
            return
        }
        defer { _ = Self.run("/bin/umount", "-l", mount) }
        let path = mount + "/store.sqlite"
        do {
            let registry = try Registry(path: path)
            try registry.directory.addAccount(name: "alice", role: .owner)
            // Fill the filesystem: what is left is less than a page.
            let filler = FileManager.default.createFile(atPath: mount + "/filler", contents: nil)
            #expect(filler)
            let handle = try #require(FileHandle(forWritingAtPath: mount + "/filler"))
            let block = Data(count: 64 * 1024)
            while (try? handle.write(contentsOf: block)) != nil {}
            try? handle.close()
            let full = registry.writability()
            #expect(full.state == .diskFull, "\(full)")
            #expect((full.freeBytes ?? .max) < 64 * 1024, "\(full)")
            #expect(try registry.directory.accounts().map(\.name) == ["alice"], "reads still work")
            #expect(throws: (any Error).self, "a write fails there") {
                for index in 0..<2000 { try registry.directory.addAccount(name: "user\(index)", role: .owner) }
            }
        }
        // Read-only: the same store after a remount.
        _ = try? FileManager.default.removeItem(atPath: mount + "/filler")
        guard Self.run("/bin/mount", "-o", "remount,ro", mount) == 0 else {
            Issue.record("cannot remount \(mount) read-only")
            return
        }
        let readOnly = Registry.writability(ofStoreAt: path)
        #expect(readOnly.state == .readOnly, "\(readOnly)")
    }

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
