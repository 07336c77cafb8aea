import Foundation
import Testing

/// The shipped unit's sandbox lets the daemon do what its hooks and its journald logging need,
/// checked against this machine's systemd (`systemd-analyze syscall-filter` expands the groups the
/// unit names).
@Suite("systemd unit hardening")
struct UnitHardeningTests {
    /// What `HookRunner` and `JournalSink` call, with glibc 2.36: `posix_spawn` is `clone3` (else
    /// `clone`) with `CLONE_VFORK`, the child's `close_range`, `dup2`/`dup3`, `setpgid`,
    /// `rt_sigaction`, `rt_sigprocmask`, `chdir`, `execve`; the parent's `pipe2`, `pidfd_open`,
    /// `poll`/`ppoll`, `read`, `wait4`, `kill`; the journal's `socket`, `sendto`, `setsockopt`.
    /// Why `clone3` matters: with `SystemCallErrorNumber=EPERM` a filtered `clone3` fails with
    /// EPERM, and glibc falls back to `clone` only on ENOSYS.
    static let needed = [
        "clone3", "clone", "vfork", "close_range", "dup2", "dup3", "setpgid", "rt_sigaction", "rt_sigprocmask",
        "chdir", "execve", "pipe2", "pidfd_open", "poll", "ppoll", "read", "wait4", "kill", "socket", "sendto",
        "setsockopt", "fstat", "newfstatat",
    ]

    static var unit: String {
        get throws {
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
            return try String(
                contentsOf: root.appendingPathComponent("packaging/systemd/nbgwd.service"),
                encoding: .utf8
            )
        }
    }

    /// The values of `key=` lines in the unit.
    static func values(_ key: String) throws -> [String] {
        try unit.split(separator: "\n").filter { $0.hasPrefix(key + "=") }.flatMap {
            $0.dropFirst(key.count + 1).split(separator: " ").map(String.init)
        }
    }

    @Test("SystemCallFilter allows every system call the hooks and the journal writer make")
    func systemCalls() throws {
        let filter = try Self.values("SystemCallFilter")
        #expect(!filter.isEmpty)
        #expect(!filter.contains { $0.hasPrefix("~") }, "a deny list: extend this test")
        let tool = "/usr/bin/systemd-analyze"
        guard FileManager.default.isExecutableFile(atPath: tool) else {
            Issue.record("\(tool) is missing (Debian's systemd package): cannot expand \(filter)")
            return
        }
        var allowed = Set<String>()
        var groups = filter.filter { $0.hasPrefix("@") }
        var expanded = Set<String>()
        allowed.formUnion(filter.filter { !$0.hasPrefix("@") })
        while let group = groups.popLast() {
            guard expanded.insert(group).inserted else { continue }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = ["syscall-filter", group]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "systemd-analyze syscall-filter \(group)")
            // Members are indented: system calls, and "@group" names, expanded in turn.
            for line in text.split(separator: "\n") where line.hasPrefix(" ") {
                let name = line.trimmingCharacters(in: .whitespaces)
                if name.hasPrefix("@") {
                    groups.append(name)
                } else if !name.hasPrefix("#"), !name.isEmpty {
                    allowed.insert(name)
                }
            }
        }
        let missing = Self.needed.filter { !allowed.contains($0) }
        #expect(missing.isEmpty, "SystemCallFilter=\(filter.joined(separator: " ")) forbids \(missing)")
    }

    /// The exposure `systemd-analyze security` gives the shipped unit, at most: 1.9 ("OK") when the
    /// security review measured it, and at every change since.
    static let maximumExposure = 1.9

    @Test("systemd-analyze security rates the unit at most 1.9, with ProcSubset, RemoveIPC and LimitNOFILE set")
    func exposure() throws {
        #expect(try Self.values("ProcSubset") == ["pid"])
        #expect(try Self.values("RemoveIPC") == ["yes"])
        #expect(try Self.values("LimitNOFILE") == ["4096"])
        let tool = "/usr/bin/systemd-analyze"
        guard FileManager.default.isExecutableFile(atPath: tool) else {
            Issue.record("\(tool) is missing (Debian's systemd package): cannot rate the unit")
            return
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        // --threshold: exit status non-zero above it (tenths); the overall line says the value.
        process.arguments = [
            "security", "--offline=yes", "--no-pager", "--threshold=\(Int((Self.maximumExposure * 10).rounded()))",
            root.appendingPathComponent("packaging/systemd/nbgwd.service").path,
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let overall = text.split(separator: "\n").first { $0.contains("Overall exposure level") } ?? "none"
        #expect(process.terminationStatus == 0, "exposure above \(Self.maximumExposure): \(overall)")
        let value = overall.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) }
        #expect(value.map { $0 <= Self.maximumExposure } == true, "\(overall)")
    }

    @Test("the daemon runs in a group of its own, the operators' and dialout supplementary, its key from systemd")
    func groups() throws {
        #expect(try Self.values("User") == ["nbgw"])
        #expect(try Self.values("Group") == ["nbgwd"])
        #expect(Set(try Self.values("SupplementaryGroups")) == ["nbgw", "dialout"])
        #expect(try Self.values("LoadCredential") == ["secrets.key:/etc/nbgw/credentials/secrets.key"])
        // systemd would chown these to User:Group (nbgw:nbgwd), taking the store and the control
        // socket's directory out of the operators' group: tmpfiles.d makes them instead.
        #expect(try Self.values("StateDirectory").isEmpty)
        #expect(try Self.values("RuntimeDirectory").isEmpty)
        #expect(try Self.values("ReadWritePaths") == ["-/var/lib/nbgw", "-/run/nbgw"])
    }

    @Test("the unit keeps AF_UNIX (journald's socket) and does not forbid exec or forks")
    func sandbox() throws {
        #expect(try Self.values("RestrictAddressFamilies").contains("AF_UNIX"))
        let unit = try Self.unit
        // Settings that would stop the hooks: no exec of anything but the daemon, no new processes.
        for forbidding in ["NoExecPaths=/", "TasksMax=1\n", "LimitNPROC=1\n", "ExecPaths="] {
            #expect(!unit.contains(forbidding), "\(forbidding) would stop the state-change hooks")
        }
    }
}
