import Daemon
import Foundation
import Ingest
import NBGWCore
import Testing

/// Which listen addresses count as loopback (IP literals only, never a name that starts like one),
/// and the metrics listener refused off loopback unless the operator opts in (security review F12).
@Suite("listen addresses: loopback decided on IP literals; metrics off loopback only when allowed")
struct DaemonListenExposureTests {
    @Test("loopback: 127.0.0.0/8 and ::1 as IP literals, and localhost; nothing that only looks like them")
    func loopbackHosts() {
        let loopback = [
            "127.0.0.1", "127.1.2.3", "127.255.255.255", "::1", "[::1]", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1",
            "localhost", "LocalHost",
        ]
        for host in loopback {
            #expect(LoopbackHost.contains(host), "\(host)")
            #expect(ListenAddress(host: host, port: 80).isLoopback, "\(host)")
            #expect(IngestConfiguration(host: host).isLoopback, "\(host)")
        }
        let remote = [
            "127.evil.example", "127.0.0.1.evil.example", "127.1", "127.0.0.01", "0177.0.0.1", "0.0.0.0", "::",
            "128.0.0.1", "10.0.0.127", "::2", "::ffff:10.0.0.1", "localhost.evil.example", "evil-localhost", "",
        ]
        for host in remote {
            #expect(!LoopbackHost.contains(host), "\(host)")
            #expect(!(ListenAddress(parsing: "\(host):80")?.isLoopback ?? false), "\(host)")
            #expect(!IngestConfiguration(host: host).isLoopback, "\(host)")
        }
    }

    @Test("[ingest] on 127.evil.example without TLS is refused like 0.0.0.0")
    func ingestOnANameThatLooksLoopback() throws {
        #expect {
            try DaemonConfiguration.parse(
                toml: "[ingest]\nenabled = true\nlisten = \"127.evil.example:8080\"\n",
                file: "nbgwd.toml"
            )
        } throws: { error in
            let problem = (error as? DaemonConfigurationError)?.problems.first
            return problem?.key == "ingest.listen" && problem?.message.contains("not a loopback address") == true
        }
    }

    @Test("[metrics] off loopback: refused naming what it would expose, accepted with allow_remote = true")
    func metricsExposure() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("nbgwd.toml")
        for listen in ["0.0.0.0:9464", "127.evil.example:9464", "[::]:9464", "192.0.2.10:9464"] {
            try "[metrics]\nlisten = \"\(listen)\"\n".write(toFile: file, atomically: true, encoding: .utf8)
            #expect {
                try DaemonConfiguration.load(explicitPath: file, environment: [:])
            } throws: { error in
                let problem = (error as? DaemonConfigurationError)?.problems.first
                return problem?.key == "metrics.listen" && problem?.line == 2
                    && problem?.message.contains("IMEI") == true
                    && problem?.message.contains("allow_remote = true") == true
            }
        }
        try "[metrics]\nlisten = \"0.0.0.0:9464\"\nallow_remote = true\n".write(
            toFile: file,
            atomically: true,
            encoding: .utf8
        )
        let allowed = try DaemonConfiguration.load(explicitPath: file, environment: [:]).configuration
        #expect(allowed.metrics.allowRemote && allowed.metrics.isExposed)
        let rendered = allowed.renderedTOML()
        #expect(rendered.contains("allow_remote = true"))
        #expect(try DaemonConfiguration.parse(toml: rendered, file: "rendered.toml") == allowed)
        // Off, or on loopback, it exposes nothing whatever allow_remote says.
        #expect(!DaemonConfiguration.Metrics(enabled: false, listen: .init(host: "0.0.0.0", port: 1)).isExposed)
        #expect(!DaemonConfiguration.Metrics(listen: .init(host: "127.0.0.1", port: 1), allowRemote: true).isExposed)
        // --metrics-listen on a flag is checked the same way.
        #expect {
            try DaemonConfiguration.load(
                explicitPath: nil,
                defaultPath: directory.path("absent.toml"),
                environment: [:],
                overrides: DaemonOverrides(metricsListen: ListenAddress(host: "0.0.0.0", port: 9464))
            )
        } throws: { ($0 as? DaemonConfigurationError)?.problems.first?.key == "metrics.listen" }
    }

    @Test("nbgwd --check-config: a remote metrics listener exits 78; with allow_remote it prints it back")
    func checkConfigThroughTheBinary() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("nbgwd.toml")
        try "[metrics]\nlisten = \"0.0.0.0:9464\"\n".write(toFile: file, atomically: true, encoding: .utf8)
        let refused = try await DaemonExitCodeTests.run(["--config", file, "--check-config"])
        #expect(refused.status == 78, "\(refused.stderr)")
        #expect(refused.stderr.contains("line 2: metrics.listen: 0.0.0.0:9464 is not a loopback address"))
        try "[metrics]\nlisten = \"0.0.0.0:9464\"\nallow_remote = true\n".write(
            toFile: file,
            atomically: true,
            encoding: .utf8
        )
        let allowed = try await DaemonExitCodeTests.run(["--config", file, "--check-config"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(allowed.stdout.contains("[metrics]\nenabled = true\nlisten = \"0.0.0.0:9464\"\nallow_remote = true"))
    }

    @Test("a daemon serving metrics off loopback (allowed) warns at start that they are unauthenticated")
    func warningAtStart() async throws {
        let directory = try TemporaryDirectory()
        let daemon = try DaemonProcess(
            config: DaemonProcess.config(ports: ["/dev/null"], store: directory.path("store.sqlite"))
                .replacingOccurrences(
                    of: "listen = \"127.0.0.1:0\"",
                    with: "listen = \"0.0.0.0:0\"\nallow_remote = true"
                ),
            directory: directory
        )
        try await daemon.waitForReady()
        #expect(daemon.log.contains("without authentication"), "\(daemon.log)")
        #expect(daemon.log.contains("allow_remote = true"))
        daemon.send(SIGTERM)
        #expect(try await daemon.waitForExit(timeout: .seconds(15)) == 0)
    }
}
