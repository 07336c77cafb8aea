import Daemon
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// sd_notify spoken over real `AF_UNIX` datagram sockets the tests bind, at a path and at an
/// abstract name, as systemd does.
@Suite("systemd notifications over a real datagram socket")
struct SystemdNotifierTests {
    static func temporarySocketPath() -> String {
        // sun_path holds 108 bytes: keep the path short (/tmp, not a deep temporary directory).
        "/tmp/nbgw-notify-\(UUID().uuidString.prefix(8)).sock"
    }

    @Test("READY and STATUS arrive as one datagram at a filesystem socket")
    func readyAtPathSocket() async throws {
        let listener = try DatagramListener(path: Self.temporarySocketPath())
        let notifier = try #require(SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.socketPath]))
        try notifier.ready(status: "ready: 8 modems")
        let message = try await listener.waitFor(timeout: .seconds(2)) { $0.contains("READY=1") }
        #expect(message == "READY=1\nSTATUS=ready: 8 modems")
    }

    @Test("an abstract socket name (@…) is reached without a filesystem entry")
    func abstractSocket() async throws {
        let name = "@nbgw-test-\(UUID().uuidString)"
        let listener = try DatagramListener(path: name)
        let notifier = try #require(SystemdNotifier(environment: ["NOTIFY_SOCKET": name]))
        try notifier.stopping(status: "stopping")
        try notifier.watchdog()
        _ = try await listener.waitFor(timeout: .seconds(2)) { $0 == "WATCHDOG=1" }
        #expect(listener.messages == ["STOPPING=1\nSTATUS=stopping", "WATCHDOG=1"])
        #expect(!FileManager.default.fileExists(atPath: String(name.dropFirst())))
    }

    @Test("a newline in a status cannot inject another assignment")
    func statusIsOneLine() async throws {
        let listener = try DatagramListener(path: Self.temporarySocketPath())
        let notifier = SystemdNotifier(socketPath: listener.socketPath)
        try notifier.status("8 modems\nREADY=1")
        let message = try await listener.waitFor(timeout: .seconds(2)) { $0.hasPrefix("STATUS=") }
        #expect(DatagramListener.assignments(message) == ["STATUS": "8 modems READY=1"])
    }

    @Test("no NOTIFY_SOCKET: no notifier; a relative path is not a socket systemd uses")
    func environmentWithoutSocket() {
        #expect(SystemdNotifier(environment: [:]) == nil)
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": "relative.sock"]) == nil)
    }

    @Test("the watchdog pings at half WATCHDOG_USEC, only for the process WATCHDOG_PID names")
    func watchdogInterval() throws {
        let environment = ["NOTIFY_SOCKET": "/run/systemd/notify", "WATCHDOG_USEC": "20000000"]
        let notifier = try #require(SystemdNotifier(environment: environment, processID: 42))
        #expect(notifier.watchdogInterval == .seconds(10))
        var forUs = environment
        forUs["WATCHDOG_PID"] = "42"
        #expect(SystemdNotifier(environment: forUs, processID: 42)?.watchdogInterval == .seconds(10))
        var forAnother = environment
        forAnother["WATCHDOG_PID"] = "43"
        #expect(SystemdNotifier(environment: forAnother, processID: 42)?.watchdogInterval == nil)
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": "@x", "WATCHDOG_USEC": "0"])?.watchdogInterval == nil)
    }

    @Test("a socket nobody listens on is an error that names it")
    func unreachableSocket() {
        let path = Self.temporarySocketPath()
        let notifier = SystemdNotifier(socketPath: path)
        #expect {
            try notifier.watchdog()
        } throws: { error in
            let failure = error as? SystemdNotifierError
            return failure?.socket == path && failure?.operation == "sendto" && failure?.code == ENOENT
                && "\(error)".contains(path)
        }
    }
}
