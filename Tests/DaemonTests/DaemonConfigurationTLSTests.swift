import Daemon
import Foundation
import Ingest
import TestCertificates
import Testing

/// `[ingest] tls_certificate` and `tls_key`: read, rendered, both or neither, absolute paths, and
/// the files themselves checked when the configuration is loaded (so by `--check-config` too),
/// each problem naming the key, its line and a fix.
@Suite("daemon configuration: ingest TLS")
struct DaemonConfigurationTLSTests {
    /// An `[ingest]` section with TLS on a non-loopback address, and nothing else to trip validation.
    static func exposed(certificate: String, key: String) -> String {
        """
        [ingest]
        enabled = true
        listen = "0.0.0.0:8443"
        tls_certificate = "\(certificate)"
        tls_key = "\(key)"
        """
    }

    /// Parses `text`, expecting failure; returns the problems.
    static func parseProblems(_ text: String) throws -> DaemonConfigurationError {
        do {
            _ = try DaemonConfiguration.parse(toml: text, file: "/etc/nbgw/nbgwd.toml")
        } catch {
            return error
        }
        Issue.record("expected the configuration to be rejected:\n\(text)")
        throw DaemonConfigurationError(file: nil, problems: [])
    }

    /// Loads `text` from a file in `directory`, expecting failure; returns the problems.
    static func loadProblems(_ text: String, in directory: TemporaryDirectory) throws -> DaemonConfigurationError {
        let file = directory.path("nbgwd.toml")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        do {
            _ = try DaemonConfiguration.load(explicitPath: file, environment: ["HOME": directory.path("home")])
        } catch {
            return error
        }
        Issue.record("expected the configuration to be rejected:\n\(text)")
        throw DaemonConfigurationError(file: nil, problems: [])
    }

    @Test("both TLS keys are read and rendered back; with them a non-loopback listen needs no insecure_expose")
    func readAndRendered() throws {
        let certificate = try SelfSignedCertificate()
        let directory = try TemporaryDirectory()
        let file = directory.path("nbgwd.toml")
        try Self.exposed(certificate: certificate.certificatePath, key: certificate.keyPath)
            .write(toFile: file, atomically: true, encoding: .utf8)
        let loaded = try DaemonConfiguration.load(explicitPath: file, environment: ["HOME": directory.path("home")])
        let ingest = loaded.configuration.ingest
        #expect(ingest.tlsCertificate == certificate.certificatePath)
        #expect(ingest.tlsKey == certificate.keyPath)
        #expect(ingest.servesTLS)
        #expect(ingest.insecureExpose == false)
        let tls = try #require(try ingest.loadTLS())
        #expect(tls.certificatePath == certificate.certificatePath)

        let rendered = loaded.configuration.renderedTOML()
        #expect(rendered.contains("tls_certificate = \"\(certificate.certificatePath)\""))
        #expect(rendered.contains("tls_key = \"\(certificate.keyPath)\""))
        #expect(try DaemonConfiguration.parse(toml: rendered, file: "rendered.toml") == loaded.configuration)
        // Without them the same listen is refused as plain HTTP.
        let plain = try Self.loadProblems("[ingest]\nenabled = true\nlisten = \"0.0.0.0:8443\"\n", in: directory)
        let problem = try #require(plain.problems.first)
        #expect(problem.key == "ingest.listen")
        #expect(problem.message.contains("tls_certificate and tls_key"))
    }

    @Test("one TLS key without the other, or a relative path, is refused with its key, line and a fix")
    func bothOrNeither() throws {
        let onlyCertificate = try Self.parseProblems(
            "[ingest]\nenabled = true\nlisten = \"0.0.0.0:8443\"\ntls_certificate = \"/etc/nbgw/ingest.crt\"\n"
        )
        let problem = try #require(onlyCertificate.problems.first)
        #expect(onlyCertificate.problems.count == 1, "the exposure check counts the TLS the operator asked for")
        #expect(problem.key == "ingest.tls_certificate")
        #expect(problem.line == 4)
        #expect(problem.message.contains("without tls_key"))
        #expect(problem.message.contains("tls_key = \"/etc/nbgw/ingest.key\""))

        let onlyKey = try Self.parseProblems("[ingest]\ntls_key = \"/etc/nbgw/ingest.key\"\n")
        #expect(onlyKey.problems.map(\.key) == ["ingest.tls_key"])
        #expect(onlyKey.problems.first?.message.contains("without tls_certificate") == true)

        let relative = try Self.parseProblems(
            "[ingest]\ntls_certificate = \"ingest.crt\"\ntls_key = \"/etc/nbgw/ingest.key\"\n"
        )
        let relativeProblem = try #require(relative.problems.first)
        #expect(relativeProblem.key == "ingest.tls_certificate")
        #expect(relativeProblem.line == 2)
        #expect(relativeProblem.message.contains("not an absolute path"))

        let wrongType = try Self.parseProblems(
            "[ingest]\ntls_certificate = 7\ntls_key = \"/etc/nbgw/ingest.key\"\n"
        )
        #expect(wrongType.problems.first?.key == "ingest.tls_certificate")
        #expect(wrongType.problems.first?.message.contains("expected a string") == true)
    }

    @Test("loading checks the files: missing, not PEM, mismatched and world-readable each name the key and line")
    func filesChecked() throws {
        let certificate = try SelfSignedCertificate()
        let other = try SelfSignedCertificate()
        let garbage = try certificate.write("garbage.pem", "not a certificate\n")
        let readable = try certificate.write(
            "readable.key",
            try String(contentsOfFile: certificate.keyPath, encoding: .utf8),
            mode: 0o644
        )
        let directory = try TemporaryDirectory()
        let cases: [(certificate: String, key: String, problemKey: String, line: Int, expected: String)] = [
            (certificate.directory + "/absent.crt", certificate.keyPath, "ingest.tls_certificate", 4, "does not exist"),
            (certificate.certificatePath, certificate.directory + "/absent.key", "ingest.tls_key", 5, "does not exist"),
            (garbage, certificate.keyPath, "ingest.tls_certificate", 4, "is not a PEM certificate"),
            (certificate.certificatePath, other.keyPath, "ingest.tls_key", 5, "does not match the certificate"),
            (certificate.certificatePath, readable, "ingest.tls_key", 5, "chmod 600 \(readable)"),
        ]
        for (certificatePath, keyPath, problemKey, line, expected) in cases {
            let error = try Self.loadProblems(Self.exposed(certificate: certificatePath, key: keyPath), in: directory)
            #expect(error.problems.count == 1, "\(error)")
            let problem = try #require(error.problems.first)
            #expect(problem.key == problemKey, "\(error)")
            #expect(problem.line == line, "\(error)")
            #expect(problem.message.contains(expected), "\(error)")
            #expect("\(error)".hasPrefix("invalid configuration in \(directory.path("nbgwd.toml")): line \(line): "))
        }
    }

    @Test("the files are checked even while the API is disabled, so --check-config finds a wrong path early")
    func checkedWhileDisabled() throws {
        let directory = try TemporaryDirectory()
        let error = try Self.loadProblems(
            "[ingest]\nenabled = false\ntls_certificate = \"/nonexistent/ingest.crt\"\ntls_key = \"/nonexistent/k\"\n",
            in: directory
        )
        #expect(error.problems.first?.key == "ingest.tls_certificate")
        #expect(error.problems.first?.line == 3)
    }
}
