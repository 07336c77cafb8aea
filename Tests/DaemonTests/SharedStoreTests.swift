import Foundation
import Registry
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The daemon under one unprivileged user in a primary group of its own with the operators' group
/// supplementary (as the unit runs it: `Group=nbgwd`, `SupplementaryGroups=nbgw`), the operator's
/// CLI under another user in the operators' group, and an outsider: the store, its WAL and SHM
/// files and the control socket get the group and modes that let the operator work without sudo or
/// flags, and the outsider is told which
/// group to join. Identities through `setpriv` (util-linux), so the tests need root to start them;
/// none of the processes runs as root.
@Suite(
    "one store, two users: the daemon's and an operator's",
    .serialized,
    .timeLimit(.minutes(5)),
    .enabled(if: geteuid() == 0, "setpriv needs root to switch to the test's users")
)
struct SharedStoreTests {
    static let group: gid_t = 64_100
    static let daemonUID: uid_t = 64_101
    static let operatorUID: uid_t = 64_102
    static let outsiderUID: uid_t = 64_103
    /// The daemon's own primary group (the unit's `nbgwd`): no operator is in it.
    static let daemonGroup: gid_t = 64_104

    /// `setpriv` running its command as `uid`, primary group `gid`, supplementary `groups`.
    static func identity(_ uid: uid_t, _ gid: gid_t, groups: [gid_t] = []) -> [String] {
        [
            "/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(gid)",
            groups.isEmpty ? "--clear-groups" : "--groups=\(groups.map(String.init).joined(separator: ","))",
            "--",
        ]
    }

    @Test("the daemon's user makes the files; an operator in its group reads, binds and acts without sudo or flags")
    func operatorInTheGroup() async throws {
        let directory = try TemporaryDirectory()
        chmod(directory.url.path, 0o755)
        let state = directory.path("state")
        let run = directory.path("run")
        for path in [state, run] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            chown(path, Self.daemonUID, Self.group)
        }
        chmod(run, 0o750)
        // The simulator's ptys belong to whoever opens them: the daemon's user, as udev would arrange.
        let simulator = try SimulatorProcess(
            ["bg95"],
            directory: directory,
            launcher: Self.identity(Self.daemonUID, Self.group)
        )
        try await simulator.waitForPorts()
        let store = state + "/nbgw.sqlite"
        let socket = run + "/control.sock"
        // The secrets key as systemd's LoadCredential= hands it over where it cannot use an ACL:
        // the daemon's user and group, 0400.
        let key = directory.path("secrets.key")
        FileManager.default.createFile(atPath: key, contents: Data((0..<32).map { UInt8($0) }))
        chown(key, Self.daemonUID, Self.daemonGroup)
        chmod(key, 0o400)
        let config =
            DaemonProcess.config(ports: simulator.ports.map(\.path), store: store)
            .replacingOccurrences(
                of: "[store]\n",
                with: "[store]\ngroup = \"\(Self.group)\"\nsecrets_key = \"\(key)\"\n"
            )
            + "\n[control]\nsocket = \"\(socket)\"\n"
        let configPath = directory.path("nbgwd.toml")
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        // root:GROUP 0640, as the package installs it: the operator reads it, the outsider does not.
        chown(configPath, 0, Self.group)
        chmod(configPath, 0o640)
        // Under the unit's UMask=0077 and its own primary group: the modes and the group must come
        // from the daemon and the setgid directory, not from the mask or the process's group.
        let daemon = try DaemonProcess(
            config: nil,
            directory: directory,
            arguments: ["--config", configPath],
            launcher: Self.identity(Self.daemonUID, Self.daemonGroup, groups: [Self.group])
                + ["/bin/sh", "-c", "umask 077; exec \"$0\" \"$@\""]
        )
        try await daemon.waitForReady()
        let rows = try await Self.waitForModems(store, daemon, "ready") { $0.first?.state == "ready" }
        let imei = try #require(rows.first?.imei)

        for (path, mode) in [
            (state, 0o2770), (store, 0o660), (store + "-wal", 0o660), (store + "-shm", 0o660), (socket, 0o660),
        ] {
            var info = stat()
            #expect(stat(path, &info) == 0, "\(path) exists")
            #expect(info.st_uid == Self.daemonUID, "\(path) belongs to the daemon's user")
            #expect(info.st_gid == Self.group, "\(path) is in the operators' group")
            #expect(Int(info.st_mode & 0o7777) == mode, "\(path) has mode \(String(mode, radix: 8))")
        }

        // The operator: no sudo, no --db, no NBGW_DB; only the daemon's config is found.
        let operatorRun = Self.identity(Self.operatorUID, Self.operatorUID, groups: [Self.group])
        let environment = ["NBGW_CONFIG": configPath, "HOME": "/nonexistent", "USER": "operator"]
        let listed = try CommandRun.nbgw("modems", "--json", environment: environment, launcher: operatorRun)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains(imei))
        let label = try #require(try Registry(path: store).directory.device(imei: imei)?.labelCode)
        for command in [
            ["accounts", "add", "alice"], ["homes", "add", "lab", "--owner", "alice"],
            ["bind", "--qr", "https://nbgw.local/d/\(label)", "--account", "alice", "--home", "lab"],
            ["bindings", "list", "--json"], ["modem", "reprobe", imei], ["at", imei, "AT+CSQ"],
        ] {
            let result = try CommandRun.run(Binaries.nbgw, command, environment: environment, launcher: operatorRun)
            #expect(result.status == 0, "nbgw \(command.joined(separator: " ")): \(result.stderr)")
        }
        let audit = try Registry(path: store).audit.entries()
        #expect(audit.contains { $0.event == "bind" && $0.operator == "operator" })
        #expect(audit.contains { $0.event == "modem_reprobe" && $0.operator == "uid \(Self.operatorUID)" })
        // The daemon still owns and writes the store after the operator's writes (WAL and SHM included).
        try await Self.waitForModems(store, daemon, "ready again after the reprobe") { $0.first?.state == "ready" }
        var info = stat()
        #expect(stat(store + "-wal", &info) == 0 && info.st_gid == Self.group && info.st_mode & 0o777 == 0o660)

        // The outsider: told which group to join, for the config, the store and the socket.
        let outsider = Self.identity(Self.outsiderUID, Self.outsiderUID)
        let denied = try CommandRun.nbgw("modems", environment: environment, launcher: outsider)
        #expect(denied.status == 77, "\(denied.stderr)")
        #expect(denied.stderr.contains("PERMISSION_DENIED") && denied.stderr.contains("join group \(Self.group)"))
        let direct = try CommandRun.nbgw("modems", environment: ["NBGW_DB": store], launcher: outsider)
        #expect(direct.status == 77 && direct.stderr.contains("join group \(Self.group)"), "\(direct.stderr)")
        let socketDenied = try CommandRun.nbgw(
            "modem",
            "reprobe",
            imei,
            environment: ["NBGW_CONTROL": socket],
            launcher: outsider
        )
        #expect(
            socketDenied.status == 77 && socketDenied.stderr.contains("PERMISSION_DENIED"),
            "\(socketDenied.stderr)"
        )
        #expect(try await Self.waitForModems(store, daemon, "still ready") { $0.first?.state == "ready" }.count == 1)
    }

    /// Polls the store at `store` (not the harness's default path) until `predicate` holds.
    static func waitForModems(
        _ store: String,
        _ daemon: DaemonProcess,
        _ what: String,
        _ predicate: ([ModemRecord]) -> Bool
    ) async throws -> [ModemRecord] {
        let deadline = ContinuousClock.now + .seconds(60)
        var rows: [ModemRecord] = []
        while ContinuousClock.now < deadline {
            rows = (try? Registry(path: store, access: .existing).modems.all()) ?? rows
            if predicate(rows) { return rows }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw DaemonProcess.Failure(description: "timed out waiting for \(what); log:\n\(daemon.log)")
    }
}
