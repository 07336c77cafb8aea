import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTesting
import Ingest
import Logging
import NBGWCore
import NIOSSL
import Synchronization
import TestCertificates
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// HTTPS on the real server (issue 7: "TLS via config when exposed"), with throwaway self-signed
/// certificates from /usr/bin/openssl, and every way a certificate or key file can be wrong.
@Suite("Ingest API over TLS")
struct IngestTLSTests {
    /// Runs the real server with `tls` on a free loopback port and calls `body` with the port.
    static func withTLSServer<T: Sendable>(
        _ fixture: IngestFixture,
        tls: IngestTLS,
        logger: Logger = Logger(label: "ingest-tls-tests"),
        _ body: @Sendable (_ port: Int) async throws -> T
    ) async throws -> T {
        var configuration = fixture.configuration()
        configuration.tls = tls
        let app = try IngestService.buildApplication(
            configuration: configuration,
            registry: fixture.registry,
            cloud: fixture.cloud,
            logger: logger
        )
        // The `.ahc(.https)` setup only starts the server and says its port; the requests below
        // go through clients of their own, which verify the certificate.
        return try await app.test(.ahc(.https)) { client in try await body(try #require(client.port)) }
    }

    /// An AsyncHTTPClient that trusts `certificate` only (nil: the system's roots), shut down after `body`.
    static func withClient<T: Sendable>(
        trusting certificate: SelfSignedCertificate?,
        configure: (inout TLSConfiguration) -> Void = { _ in },
        _ body: (HTTPClient) async throws -> T
    ) async throws -> T {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let certificate {
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(certificate.certificatePath))
        }
        configure(&tls)
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.timeout = .init(connect: .seconds(2), read: .seconds(5))
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let value = try await body(client)
            try await client.shutdown()
            return value
        } catch {
            try await client.shutdown()
            throw error
        }
    }

    /// POST `body` to `url` with `key`; status and body text.
    static func post(
        _ client: HTTPClient,
        _ url: String,
        key: String,
        body: String
    ) async throws -> (
        status: Int, body: String
    ) {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(key)")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await client.execute(request, timeout: .seconds(10))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), String(buffer: bytes))
    }

    /// `IngestTLS.load`, expecting it to fail; returns the error.
    static func refusal(certificate: String, key: String) throws -> IngestTLSError {
        do {
            _ = try IngestTLS.load(certificate: certificate, key: key)
        } catch {
            return error
        }
        Issue.record("expected \(certificate) and \(key) to be refused")
        throw IngestTLSError(file: .key, path: key, message: "accepted")
    }

    @Test("HTTPS with the certificate as trust root binds a QR; plain HTTP to the same port gets no answer")
    func httpsServesAndPlainHTTPFails() async throws {
        let fixture = try await IngestFixture(devices: 1)
        let certificate = try SelfSignedCertificate()
        let tls = try IngestTLS.load(certificate: certificate.certificatePath, key: certificate.keyPath)
        var configuration = fixture.configuration()
        configuration.tls = tls
        #expect(configuration.scheme == "https")
        let body = jsonBody(["qr": fixture.labels[0], "account": "alice", "home": "lab"])
        try await Self.withTLSServer(fixture, tls: tls) { port in
            try await Self.withClient(trusting: certificate) { client in
                let parsed = try await Self.post(
                    client,
                    "https://localhost:\(port)/v1/qr/parse",
                    key: fixture.key,
                    body: jsonBody(["qr": fixture.labels[0]])
                )
                #expect(parsed.status == 200, "\(parsed.body)")
                #expect(parsed.body.contains(fixture.ids[0]))
                let bound = try await Self.post(
                    client,
                    "https://localhost:\(port)/v1/bindings",
                    key: fixture.key,
                    body: body
                )
                #expect(bound.status == 201, "\(bound.body)")

                await #expect(throws: (any Error).self, "a plain HTTP request to the TLS port must not be answered") {
                    _ = try await Self.post(client, "http://localhost:\(port)/v1/noop", key: fixture.key, body: "{}")
                }
            }
            // The server presents this certificate: a client that does not trust it gives up.
            try await Self.withClient(trusting: nil) { client in
                await #expect(throws: (any Error).self) {
                    _ = try await Self.post(client, "https://localhost:\(port)/v1/noop", key: fixture.key, body: "{}")
                }
            }
        }
        #expect(try fixture.registry.bindings.list().count == 1)
    }

    @Test("TLS 1.2 and 1.3 clients are served; a client that stops at TLS 1.1 is refused")
    func tlsTwelveIsTheMinimum() async throws {
        let fixture = try await IngestFixture(devices: 1)
        let certificate = try SelfSignedCertificate()
        let tls = try IngestTLS.load(certificate: certificate.certificatePath, key: certificate.keyPath)
        try await Self.withTLSServer(fixture, tls: tls) { port in
            let url = "https://localhost:\(port)/v1/noop"
            for version in [TLSVersion.tlsv12, .tlsv13] {
                let reply = try await Self.withClient(
                    trusting: certificate,
                    configure: {
                        $0.minimumTLSVersion = version
                        $0.maximumTLSVersion = version
                    }
                ) { client in
                    try await Self.post(client, url, key: fixture.key, body: "{}")
                }
                #expect(reply.status == 200, "\(version): \(reply.body)")
            }
            try await Self.withClient(
                trusting: certificate,
                configure: {
                    $0.minimumTLSVersion = .tlsv1
                    $0.maximumTLSVersion = .tlsv11
                }
            ) { client in
                await #expect(throws: (any Error).self, "a TLS 1.1 handshake must fail") {
                    _ = try await Self.post(client, url, key: fixture.key, body: "{}")
                }
            }
        }
    }

    @Test("the listening log names the certificate and key paths, never the key itself")
    func keyNeverLogged() async throws {
        let fixture = try await IngestFixture(devices: 1)
        let certificate = try SelfSignedCertificate()
        let tls = try IngestTLS.load(certificate: certificate.certificatePath, key: certificate.keyPath)
        let records = RecordedLogs()
        var logger = Logger(label: "ingest-tls-tests") { _ in RecordingLogHandler(records: records) }
        logger.logLevel = .trace
        try await Self.withTLSServer(fixture, tls: tls, logger: logger) { port in
            try await Self.withClient(trusting: certificate) { client in
                _ = try await Self.post(client, "https://localhost:\(port)/v1/noop", key: fixture.key, body: "{}")
            }
        }
        let lines = records.lines
        let listening = try #require(lines.first { $0.contains("ingest API listening") }, "\(lines)")
        #expect(listening.contains("scheme=https"))
        #expect(listening.contains(certificate.certificatePath))
        #expect(listening.contains(certificate.keyPath))
        let keyText = try String(contentsOfFile: certificate.keyPath, encoding: .utf8)
        for secret in Self.base64Lines(keyText) {
            #expect(!lines.contains { $0.contains(secret) }, "a line of the key was logged")
        }
    }

    @Test("the loaded identity shows paths only: description and dump carry no key material")
    func identityHidesTheKey() throws {
        let certificate = try SelfSignedCertificate()
        let tls = try IngestTLS.load(certificate: certificate.certificatePath, key: certificate.keyPath)
        #expect(tls.certificatePath == certificate.certificatePath)
        #expect(tls.keyPath == certificate.keyPath)
        #expect(tls.notValidAfter > Date())
        #expect(tls.notValidAfter < Date().addingTimeInterval(2 * 86400))
        var dumped = ""
        dump(tls, to: &dumped)
        let shown = "\(tls)" + String(reflecting: tls) + dumped
        #expect(shown.contains(certificate.keyPath))
        let keyText = try String(contentsOfFile: certificate.keyPath, encoding: .utf8)
        for secret in Self.base64Lines(keyText) {
            #expect(!shown.contains(secret))
        }
        #expect(tls.serverConfiguration.minimumTLSVersion == .tlsv12)
    }

    @Test("a missing certificate, a missing key and a directory are refused, naming the file")
    func missingFiles() throws {
        let certificate = try SelfSignedCertificate()
        let absent = certificate.directory + "/absent.pem"
        let noCertificate = try Self.refusal(certificate: absent, key: certificate.keyPath)
        #expect(noCertificate.file == .certificate)
        #expect(noCertificate.path == absent)
        #expect(noCertificate.message.contains("TLS certificate \(absent) does not exist"))

        let noKey = try Self.refusal(certificate: certificate.certificatePath, key: absent)
        #expect(noKey.file == .key)
        #expect(noKey.message.contains("TLS private key \(absent) does not exist"))

        let directory = try Self.refusal(certificate: certificate.directory, key: certificate.keyPath)
        #expect(directory.file == .certificate)
        #expect(directory.message.contains("is not a regular file"))
    }

    @Test("a key every user can read is refused with chmod 600 PATH; owner- and group-only keys load")
    func worldReadableKey() throws {
        let certificate = try SelfSignedCertificate()
        for mode in [0o644, 0o604, 0o666] {
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: certificate.keyPath)
            let refused = try Self.refusal(certificate: certificate.certificatePath, key: certificate.keyPath)
            #expect(refused.file == .key)
            #expect(refused.message.contains("chmod 600 \(certificate.keyPath)"), "\(refused)")
            #expect(refused.message.contains("mode \(String(mode, radix: 8))"), "\(refused)")
        }
        for mode in [0o600, 0o640, 0o400] {
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: certificate.keyPath)
            #expect(throws: Never.self, "mode \(String(mode, radix: 8))") {
                try IngestTLS.load(certificate: certificate.certificatePath, key: certificate.keyPath)
            }
        }
    }

    @Test(
        "a key the operators' group (or any but the reader's own) may read, or another user owns, is refused"
    )
    func groupReadableKey() throws {
        let certificate = try SelfSignedCertificate()
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: certificate.keyPath)
        // The daemon's own primary group (nbgwd under the unit) may read it.
        #expect(chown(certificate.keyPath, uid_t.max, getegid()) == 0)
        #expect(throws: Never.self) {
            try IngestTLS.load(certificate: certificate.certificatePath, key: certificate.keyPath)
        }
        guard geteuid() == 0 else {
            Issue.record("run as root to give the key another group and owner")
            return
        }
        // Any other group, as the documented root:nbgw 0640 of earlier versions was: every operator's.
        let operators: gid_t = getegid() == 65534 ? 65533 : 65534
        #expect(chown(certificate.keyPath, uid_t.max, operators) == 0)
        let grouped = try Self.refusal(certificate: certificate.certificatePath, key: certificate.keyPath)
        #expect(grouped.file == .key)
        #expect(grouped.message.contains("is readable by group \(SecretFileAccess.groupName(operators))"), "\(grouped)")
        #expect(grouped.message.contains("LoadCredential="), "\(grouped)")
        #expect(grouped.message.contains("chmod 600 \(certificate.keyPath)"))
        // Owner-only again, but another user's: refused too.
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: certificate.keyPath)
        #expect(chown(certificate.keyPath, 65534, getegid()) == 0)
        let owned = try Self.refusal(certificate: certificate.certificatePath, key: certificate.keyPath)
        #expect(owned.message.contains("belongs to user \(SecretFileAccess.userName(65534))"), "\(owned)")
    }

    @Test("garbage, swapped files, an empty file and an encrypted key are each named with what is wrong")
    func wrongContents() throws {
        let certificate = try SelfSignedCertificate()
        let garbage = try certificate.write("garbage.pem", "this is not a certificate\n")
        let empty = try certificate.write("empty.pem", "")
        let damaged = try certificate.write(
            "damaged.pem",
            "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n"
        )
        let encrypted = try certificate.write(
            "encrypted.pem",
            "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIHsMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAg=\n"
                + "-----END ENCRYPTED PRIVATE KEY-----\n"
        )
        let damagedKey = try certificate.write(
            "damaged-key.pem",
            "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n"
        )

        let notPEM = try Self.refusal(certificate: garbage, key: certificate.keyPath)
        #expect(notPEM.file == .certificate)
        #expect(notPEM.message.contains("\(garbage) is not a PEM certificate"))
        let nothing = try Self.refusal(certificate: empty, key: certificate.keyPath)
        #expect(nothing.message.contains("is not a PEM certificate"))
        let unparsable = try Self.refusal(certificate: damaged, key: certificate.keyPath)
        #expect(unparsable.message.contains("cannot be parsed"))

        let swapped = try Self.refusal(certificate: certificate.keyPath, key: certificate.certificatePath)
        #expect(swapped.file == .certificate)
        #expect(swapped.message.contains("swapped"))

        let garbageKey = try Self.refusal(certificate: certificate.certificatePath, key: garbage)
        #expect(garbageKey.file == .key)
        #expect(garbageKey.message.contains("\(garbage) is not a PEM private key"))
        let locked = try Self.refusal(certificate: certificate.certificatePath, key: encrypted)
        #expect(locked.message.contains("encrypted"))
        let broken = try Self.refusal(certificate: certificate.certificatePath, key: damagedKey)
        #expect(broken.message.contains("cannot be parsed"))
    }

    @Test("a key made for another certificate is refused as not matching it")
    func mismatchedKey() throws {
        let first = try SelfSignedCertificate()
        let second = try SelfSignedCertificate()
        let refused = try Self.refusal(certificate: first.certificatePath, key: second.keyPath)
        #expect(refused.file == .key)
        #expect(refused.path == second.keyPath)
        #expect(refused.message.contains("does not match the certificate \(first.certificatePath)"), "\(refused)")
        #expect(throws: Never.self) { try IngestTLS.load(certificate: second.certificatePath, key: second.keyPath) }
    }

    /// The base64 body lines of a PEM text (what must never be shown).
    static func base64Lines(_ pem: String) -> [String] {
        pem.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("-----") && $0.count >= 16 }
    }
}

/// Log lines as text, from ``RecordingLogHandler``.
final class RecordedLogs: Sendable {
    private let storage = Mutex<[String]>([])

    func append(_ line: String) { storage.withLock { $0.append(line) } }
    var lines: [String] { storage.withLock { $0 } }
}

/// A log handler that records every message with its metadata.
struct RecordingLogHandler: LogHandler {
    let records: RecordedLogs
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(
        level: Logger.Level,
        message: Logger.Message,
        metadata: Logger.Metadata?,
        source: String,
        file: String,
        function: String,
        line: UInt
    ) {
        let merged = self.metadata.merging(metadata ?? [:]) { $1 }
        let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        records.append("\(level) \(message) \(fields)")
    }
}
