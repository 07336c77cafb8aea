import Cloud
import DeviceIdentity
import Foundation
import NBGWCore
import TestCertificates
import TestPostgres
import Testing
import TuyaCloud

/// Nodes serving HTTPS themselves, gateways trusting a private CA through `ca_file`, and a
/// renewed certificate picked up on SIGHUP without a restart.
@Suite("Fleet cloud over TLS")
struct FleetTLSTests {
    /// A gateway's cloud exactly as nbgwd resolves it from `[cloud]`: `ca_file` included.
    static func cloud(port: Int, credentials: CloudCredentials, caFile: String?) throws -> HTTPCloud {
        var settings = ["client_id": credentials.clientID, "secret": credentials.secret]
        settings["ca_file"] = caFile
        var configuration = try CloudConfiguration.resolve(
            baseURL: "https://127.0.0.1:\(port)",
            settings: settings,
            environment: [:]
        )
        configuration.retryPolicy = RetryPolicy(maxAttempts: 1)
        return HTTPCloud(configuration: configuration)
    }

    /// The gateway's view of the fleet's modules, or the error that stopped it.
    static func modules(port: Int, credentials: CloudCredentials, caFile: String?) async -> Result<Int, NBGWError> {
        do {
            let cloud = try cloud(port: port, credentials: credentials, caFile: caFile)
            defer { Task { await cloud.shutdown() } }
            do {
                return .success(try await cloud.cloudModules().count)
            } catch {
                return .failure(error)
            }
        } catch {
            return .failure(NBGWError(.internalError, "\(error)"))
        }
    }

    @Test("A gateway reaches a TLS node through its CA file, and without it is told to set ca_file")
    func gatewaysTrustAPrivateCAThroughConfiguration() async throws {
        let identity = try SelfSignedCertificate()
        try await FleetFixture.with(nodes: 0) { fleet in
            let node = try await fleet.startNode([
                "--tenant-rate", "0", "--tls-certificate", identity.certificatePath, "--tls-key", identity.keyPath,
            ])
            let credentials = try await fleet.addGateway("gw")
            let trusted = await Self.modules(
                port: node.port,
                credentials: credentials,
                caFile: identity.certificatePath
            )
            #expect(trusted == .success(0), "\(trusted)")

            let untrusted = await Self.modules(port: node.port, credentials: credentials, caFile: nil)
            guard case .failure(let error) = untrusted else {
                Issue.record("a certificate of a private CA was accepted without ca_file")
                return
            }
            #expect(error.message.contains("ca_file"), "\(error)")
        }
    }

    @Test("SIGHUP makes a node serve its renewed certificate to new connections; a bad pair keeps the old one")
    func nodesReloadTheirCertificateOnSIGHUP() async throws {
        let first = try SelfSignedCertificate()
        let renewed = try SelfSignedCertificate()
        try await FleetFixture.with(nodes: 0) { fleet in
            // The node serves files at fixed paths, as /etc/nbgw/… would be.
            let certificate = try first.write("served.pem", first.certificatePEM, mode: 0o644)
            let key = try first.write("served.key", try String(contentsOfFile: first.keyPath, encoding: .utf8))
            let node = try await fleet.startNode([
                "--tenant-rate", "0", "--tls-certificate", certificate, "--tls-key", key,
            ])
            let credentials = try await fleet.addGateway("gw")
            #expect(
                await Self.modules(port: node.port, credentials: credentials, caFile: first.certificatePath)
                    == .success(0)
            )
            #expect(
                await Self.modules(port: node.port, credentials: credentials, caFile: renewed.certificatePath)
                    != .success(0)
            )

            // A renewal half written (the new certificate, the old key) is refused; the old pair stays.
            try renewed.certificatePEM.write(toFile: certificate, atomically: true, encoding: .utf8)
            node.child.signal(SIGHUP)
            try await Task.sleep(for: .milliseconds(500))
            #expect(
                await Self.modules(port: node.port, credentials: credentials, caFile: first.certificatePath)
                    == .success(0),
                "a key that does not match its certificate must not replace the pair being served"
            )

            // The whole renewal, then SIGHUP: new connections get the new certificate.
            try String(contentsOfFile: renewed.keyPath, encoding: .utf8).write(
                toFile: key,
                atomically: true,
                encoding: .utf8
            )
            chmod(key, 0o600)
            node.child.signal(SIGHUP)
            var served = false
            for _ in 0..<50 where !served {
                served =
                    await Self.modules(port: node.port, credentials: credentials, caFile: renewed.certificatePath)
                    == .success(0)
                if !served { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(served, "the renewed certificate was not served within 5 s of SIGHUP")
            #expect(
                await Self.modules(port: node.port, credentials: credentials, caFile: first.certificatePath)
                    != .success(0)
            )
        }
    }

    @Test("A node refuses to start with a key other users can read, naming the file and the fix")
    func nodesRefuseReadableKeys() async throws {
        let identity = try SelfSignedCertificate()
        chmod(identity.keyPath, 0o644)
        try await FleetFixture.with(nodes: 0) { fleet in
            let (status, _, errors) = await fleet.cloud([
                "serve", "--listen", "127.0.0.1:0", "--key-file", fleet.keyFile,
                "--tls-certificate", identity.certificatePath, "--tls-key", identity.keyPath,
            ])
            #expect(status != 0)
            #expect(errors.contains(identity.keyPath) && errors.contains("chmod 600"), "\(errors)")
            #expect(errors.contains("nbgw-cloud") && errors.contains("docs/fleet.md"), "\(errors)")
        }
    }
}
