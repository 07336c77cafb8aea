import Foundation
import TestCertificates
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `nbgw apikeys` and `nbgw ingest serve` as real processes: keys created, listed and revoked by
/// the CLI, then used against the server the CLI started, over real loopback HTTP.
@Suite("nbgw CLI: API keys and the ingest server")
struct IngestCLITests {
    @Test("apikeys create prints the key once; list never shows it; names are unique; revoke is final")
    func apiKeys() throws {
        let cli = try CLI()
        let created = try cli.run("apikeys", "create", "--name", "scanner-1", "--json")
        #expect(created.status == 0, "\(created.stderr)")
        let key = try #require(created.json["key"] as? String)
        let prefix = try #require(created.json["prefix"] as? String)
        #expect(key.hasPrefix(prefix + "_") && key.count == 57)
        #expect(created.json["name"] as? String == "scanner-1")

        let text = try cli.run("apikeys", "create", "--name", "scanner-2")
        #expect(text.status == 0)
        #expect(text.stdout.contains("scanner-2") && text.stdout.contains("nbgw_"))

        let duplicate = try cli.run("apikeys", "create", "--name", "scanner-1", "--json")
        #expect(duplicate.status == 40)
        #expect(duplicate.errorCode == "INVALID_ARGUMENT")
        let badName = try cli.run("apikeys", "create", "--name", "bad name", "--json")
        #expect(badName.status == 40)

        let listed = try cli.run("apikeys", "list", "--json")
        #expect(listed.status == 0)
        let keys = listed.json["apiKeys"] as? [[String: Any]] ?? []
        #expect(keys.compactMap { $0["name"] as? String } == ["scanner-1", "scanner-2"])
        #expect(keys.first?["prefix"] as? String == prefix)
        #expect(keys.allSatisfy { $0["revokedAt"] == nil })
        #expect(!listed.stdout.contains(key))
        let table = try cli.run("apikeys", "list")
        #expect(table.stdout.contains("scanner-1") && !table.stdout.contains(key))

        let revoked = try cli.run("apikeys", "revoke", "scanner-1", "--json")
        #expect(revoked.status == 0)
        #expect(revoked.json["revokedAt"] as? String != nil)
        let again = try cli.run("apikeys", "revoke", "scanner-1", "--json")
        #expect(again.status == 0)
        #expect(again.json["revokedAt"] as? String == revoked.json["revokedAt"] as? String)
        let unknown = try cli.run("apikeys", "revoke", "nobody", "--json")
        #expect(unknown.status == 40)
        #expect(unknown.errorCode == "INVALID_ARGUMENT")
    }

    @Test("ingest serve on a free port: the created key binds, a revoked key gets 401, SIGTERM exits 0 promptly")
    func serve() async throws {
        let cli = try CLI()
        let (deviceID, label) = try cli.seed()
        let key = try #require(try cli.run("apikeys", "create", "--name", "scanner-1", "--json").json["key"] as? String)
        let spare = try #require(try cli.run("apikeys", "create", "--name", "spare", "--json").json["key"] as? String)

        let server = try ServerProcess(cli: cli, arguments: ["ingest", "serve", "--port", "0", "--json"])
        defer { server.kill() }
        let listening = try #require(
            server.waitForJSONLine(within: .seconds(30)),
            "no listening line: \(server.output)"
        )
        #expect(listening["status"] as? String == "listening")
        #expect(listening["host"] as? String == "127.0.0.1")
        let port = try #require((listening["port"] as? String).flatMap(Int.init))
        #expect(port > 0)
        let base = "http://127.0.0.1:\(port)"

        let body = #"{"qr":"\#(label)","account":"alice","home":"alice-home"}"#
        let none = try await HTTP.call("POST", base + "/v1/bindings", key: nil, body: body)
        #expect(none.status == 401)
        #expect(none.code == "UNAUTHENTICATED")

        let bound = try await HTTP.call("POST", base + "/v1/bindings", key: key, body: body)
        #expect(bound.status == 201, "\(bound.text)")
        #expect(bound.json["status"] as? String == "bound")
        #expect(bound.json["deviceId"] as? String == deviceID)
        #expect(bound.json["operator"] as? String == "scanner-1")
        #expect(bound.json["source"] as? String == "http")

        // The CLI sees the server's bind in the same store.
        let list = try cli.run("bindings", "list", "--json").json["bindings"] as? [[String: Any]] ?? []
        #expect(list.compactMap { $0["deviceId"] as? String } == [deviceID])

        #expect(try cli.run("apikeys", "revoke", "scanner-1").status == 0)
        let refused = try await HTTP.call("DELETE", base + "/v1/bindings/\(deviceID)", key: key, body: nil)
        #expect(refused.status == 401)
        #expect(refused.code == "UNAUTHENTICATED")
        #expect(!refused.text.contains(key))
        let stillBound = try cli.run("bindings", "list", "--json").json["bindings"] as? [[String: Any]] ?? []
        #expect(stillBound.count == 1, "a revoked key's request changed nothing")
        // Another key keeps working.
        let parsed = try await HTTP.call("POST", base + "/v1/qr/parse", key: spare, body: #"{"qr":"\#(label)"}"#)
        #expect(parsed.status == 200)

        let stopped = server.terminate(within: .seconds(10))
        #expect(stopped == 0, "ingest serve did not exit 0 within 10 s of SIGTERM: \(String(describing: stopped))")
    }

    @Test("ingest serve refuses a non-loopback address without TLS or --insecure-expose")
    func refusesExposure() throws {
        let cli = try CLI()
        let result = try cli.run("ingest", "serve", "--host", "0.0.0.0", "--port", "0", "--json")
        #expect(result.status == 40)
        #expect(result.errorCode == "INVALID_ARGUMENT")
        #expect(result.stdout.contains("--tls-certificate"))
    }

    @Test("ingest serve on 0.0.0.0 with --tls-certificate and --tls-key needs no --insecure-expose and serves HTTPS")
    func servesHTTPSWhenExposed() async throws {
        let cli = try CLI()
        let certificate = try SelfSignedCertificate()
        let (deviceID, label) = try cli.seed()
        let key = try #require(try cli.run("apikeys", "create", "--name", "scanner-1", "--json").json["key"] as? String)

        let server = try ServerProcess(
            cli: cli,
            arguments: [
                "ingest", "serve", "--host", "0.0.0.0", "--port", "0", "--tls-certificate", certificate.certificatePath,
                "--tls-key", certificate.keyPath, "--json",
            ]
        )
        defer { server.kill() }
        let listening = try #require(
            server.waitForJSONLine(within: .seconds(30)),
            "no listening line: \(server.output)"
        )
        #expect(listening["status"] as? String == "listening")
        #expect(listening["scheme"] as? String == "https")
        #expect(listening["host"] as? String == "0.0.0.0")
        let port = try #require((listening["port"] as? String).flatMap(Int.init))

        let bound = try Curl.request(
            "https://127.0.0.1:\(port)/v1/bindings",
            method: "POST",
            trusting: certificate.certificatePath,
            headers: ["Authorization": "Bearer \(key)"],
            body: #"{"qr":"\#(label)","account":"alice","home":"alice-home"}"#
        )
        #expect(bound.status == 201, "\(bound)")
        #expect(bound.body.contains(deviceID))

        let plain = try Curl.request(
            "http://127.0.0.1:\(port)/v1/noop",
            method: "POST",
            trusting: nil,
            headers: ["Authorization": "Bearer \(key)"],
            body: "{}"
        )
        #expect(plain.exitStatus != 0, "plain HTTP to the TLS port was answered: \(plain)")
        #expect(plain.status == 0)

        let stopped = server.terminate(within: .seconds(10))
        #expect(stopped == 0, "ingest serve did not exit 0 within 10 s of SIGTERM: \(String(describing: stopped))")
    }

    @Test("ingest serve stops at once on a bad TLS file, naming it: missing, world-readable, garbage, mismatched")
    func refusesBadTLSFiles() throws {
        let cli = try CLI()
        let certificate = try SelfSignedCertificate()
        let other = try SelfSignedCertificate()
        let garbage = try certificate.write("garbage.pem", "not a certificate\n")
        let readable = try certificate.write(
            "readable.key",
            try String(contentsOfFile: certificate.keyPath, encoding: .utf8),
            mode: 0o644
        )
        let cases: [(certificate: String, key: String, expected: String)] = [
            (certificate.directory + "/absent.crt", certificate.keyPath, "absent.crt does not exist"),
            (certificate.certificatePath, readable, "chmod 600 \(readable)"),
            (garbage, certificate.keyPath, "\(garbage) is not a PEM certificate"),
            (certificate.certificatePath, other.keyPath, "does not match the certificate"),
        ]
        for (certificatePath, keyPath, expected) in cases {
            let result = try cli.run(
                "ingest",
                "serve",
                "--host",
                "0.0.0.0",
                "--port",
                "0",
                "--tls-certificate",
                certificatePath,
                "--tls-key",
                keyPath,
                "--json"
            )
            #expect(result.status == 40, "\(expected): \(result.stdout) \(result.stderr)")
            #expect(result.errorCode == "INVALID_ARGUMENT")
            let message = (result.json["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(message.contains(expected), "\(message)")
            #expect(!result.stdout.contains("listening"))
        }
    }

    @Test("--tls-certificate without --tls-key (or the reverse) is a usage error")
    func tlsFlagsGoTogether() throws {
        let cli = try CLI()
        let certificate = try SelfSignedCertificate()
        let alone = try cli.run("ingest", "serve", "--port", "0", "--tls-certificate", certificate.certificatePath)
        #expect(alone.status == 64)
        #expect(alone.stderr.contains("--tls-certificate needs --tls-key"), "\(alone.stderr)")
        let keyAlone = try cli.run("ingest", "serve", "--port", "0", "--tls-key", certificate.keyPath)
        #expect(keyAlone.status == 64)
        #expect(keyAlone.stderr.contains("--tls-key needs --tls-certificate"), "\(keyAlone.stderr)")
    }
}

/// A long-running `nbgw` process whose stdout is collected as it arrives.
final class ServerProcess: @unchecked Sendable {
    private let process: Process
    private let lock = NSLock()
    // Guarded by `lock`.
    private var collected = Data()

    init(cli: CLI, arguments: [String]) throws {
        let (process, out, _) = try cli.start(arguments)
        self.process = process
        out.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self else { return }
            if data.isEmpty { handle.readabilityHandler = nil }
            self.lock.withLock { self.collected.append(data) }
        }
    }

    var output: String { lock.withLock { String(decoding: collected, as: UTF8.self) } }

    /// The first stdout line that is a JSON object, polling until `within` has passed or the process exits.
    func waitForJSONLine(within limit: Duration) -> [String: Any]? {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            for line in output.split(separator: "\n") {
                if let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] {
                    return object
                }
            }
            if !process.isRunning { return nil }
            // Why 20 ms: a poll of a real process's output; the server starts in well under a second.
            Thread.sleep(forTimeInterval: 0.02)
        }
        return nil
    }

    /// Sends SIGTERM and waits up to `within` for the exit status (nil: still running).
    func terminate(within limit: Duration) -> Int32? {
        process.terminate()
        let deadline = ContinuousClock.now + limit
        while process.isRunning && ContinuousClock.now < deadline {
            // Why 20 ms: polling a real process for its exit; the deadline is what the test asserts.
            Thread.sleep(forTimeInterval: 0.02)
        }
        return process.isRunning ? nil : process.terminationStatus
    }

    func kill() {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
    }
}

/// A minimal HTTP client over URLSession for the tests.
enum HTTP {
    struct Reply {
        var status: Int
        var text: String
        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
        }
        var code: String? { (json["error"] as? [String: Any])?["code"] as? String }
    }

    static func call(_ method: String, _ url: String, key: String?, body: String?) async throws -> Reply {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        request.timeoutInterval = 10
        if let key { request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(body.utf8)
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return Reply(
            status: (response as? HTTPURLResponse)?.statusCode ?? 0,
            text: String(decoding: data, as: UTF8.self)
        )
    }
}
