import Foundation
import TestCertificates
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `nbgwd`'s documented exit codes, from the real process (docs/operations.md, "Troubleshooting by exit code").
@Suite("nbgwd exit codes", .timeLimit(.minutes(2)))
struct DaemonExitCodeTests {
    /// Runs `nbgwd arguments…` to completion: status, stdout, stderr.
    static func run(
        _ arguments: [String],
        timeout: Duration = .seconds(30)
    ) async throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        let directory = try TemporaryDirectory()
        let out = directory.path("stdout")
        let err = directory.path("stderr")
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        _ = FileManager.default.createFile(atPath: err, contents: nil)
        let process = Process()
        process.executableURL = Binaries.nbgwd
        process.arguments = arguments
        process.environment = Binaries.cleanEnvironment(["HOME": directory.path("home")])
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while process.isRunning, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            Issue.record("nbgwd \(arguments) did not exit within \(timeout)")
        }
        return (
            process.terminationStatus,
            (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
            (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
        )
    }

    @Test("an invalid config file: exit 78, naming the file, the line and the key")
    func invalidConfig() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("nbgwd.toml")
        try "[modem]\nregistration_timeout = \"5m\"\n[metrics]\nlisten = \"everywhere\"\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        for arguments in [["--config", file], ["--config", file, "--check-config"]] {
            let result = try await Self.run(arguments)
            #expect(result.status == 78)
            #expect(result.stderr.contains("invalid configuration in \(file) (2 problems)"))
            #expect(result.stderr.contains("line 2: modem.registration_timeout: expected a number of seconds"))
            #expect(result.stderr.contains("line 4: metrics.listen:"))
        }
    }

    @Test("a TLS key other users can read: --check-config and a start exit 78 naming the line, key and chmod 600")
    func worldReadableTLSKey() async throws {
        let certificate = try SelfSignedCertificate()
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: certificate.keyPath)
        let directory = try TemporaryDirectory()
        let file = directory.path("nbgwd.toml")
        try """
        [ingest]
        enabled = true
        listen = "0.0.0.0:0"
        tls_certificate = "\(certificate.certificatePath)"
        tls_key = "\(certificate.keyPath)"
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let keyText = try String(contentsOfFile: certificate.keyPath, encoding: .utf8)
        for arguments in [
            ["--config", file, "--check-config"], ["--config", file, "--no-udev", "--port", "/dev/null"],
        ] {
            let result = try await Self.run(arguments)
            #expect(result.status == 78, "\(arguments): \(result.stderr)")
            #expect(
                result.stderr.contains("invalid configuration in \(file): line 5: ingest.tls_key:"),
                "\(result.stderr)"
            )
            #expect(result.stderr.contains("chmod 600 \(certificate.keyPath)"))
            #expect(!result.stderr.contains(keyText.split(separator: "\n")[1]), "key material in the message")
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: certificate.keyPath)
        let fixed = try await Self.run(["--config", file, "--check-config"])
        #expect(fixed.status == 0, "\(fixed.stderr)")
        #expect(fixed.stdout.contains("tls_key = \"\(certificate.keyPath)\""))
    }

    @Test("--check-config prints the effective configuration: file, environment and flags merged")
    func checkConfig() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("nbgwd.toml")
        try "[discovery]\nudev = false\n[[ports]]\npath = \"/dev/ttyS3\"\nbaud = 9600\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await Self.run([
            "--config", file, "--check-config", "--db", "/var/lib/nbgw/x.sqlite", "--port", "/dev/pts/5:115200",
            "--grace-period", "3",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("# file: \(file)"))
        #expect(result.stdout.contains("path = \"/var/lib/nbgw/x.sqlite\""))
        #expect(result.stdout.contains("[[ports]]\npath = \"/dev/ttyS3\"\nbaud = 9600"))
        #expect(result.stdout.contains("[[ports]]\npath = \"/dev/pts/5\"\nbaud = 115200"))
        #expect(result.stdout.contains("grace_period = 3"))
        #expect(result.stdout.contains("udev = false"))
    }

    @Test("a store that cannot be opened: exit 70 with the path and what to do")
    func storeUnavailable() async throws {
        let result = try await Self.run(["--db", "/proc/nbgw-test/store.sqlite", "--no-udev", "--port", "/dev/null"])
        #expect(result.status == 70)
        #expect(result.stderr.contains("/proc/nbgw-test"))
        #expect(result.stderr.contains("STORE_UNAVAILABLE"))
    }

    @Test("the metrics address is taken: exit 69 naming the metrics service")
    func metricsAddressInUse() async throws {
        let taken = try TCPListener()
        let directory = try TemporaryDirectory()
        let result = try await Self.run([
            "--db", directory.path("store.sqlite"), "--no-udev", "--port", "/dev/null", "--metrics-listen",
            "127.0.0.1:\(taken.port)",
        ])
        #expect(result.status == 69)
        #expect(result.stderr.contains("the metrics service stopped"))
    }
}

/// A TCP socket listening on a free loopback port, to make an address unavailable.
final class TCPListener {
    let descriptor: Int32
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && listen(descriptor, 1) == 0
                    && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw DaemonProcess.Failure(description: "cannot listen on loopback: errno \(errno)")
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }
}
