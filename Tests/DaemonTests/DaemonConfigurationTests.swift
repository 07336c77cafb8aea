import Daemon
import Foundation
import Gateway
import Testing

/// The TOML configuration: every section read, every kind of mistake reported with its key, line
/// and a fix, and the precedence flag > environment > file > default.
@Suite("daemon configuration")
struct DaemonConfigurationTests {
    static let full = """
        # A complete file.
        [store]
        path = "/var/lib/nbgw/nbgw.sqlite"

        [cloud]
        mode = "local"

        [modem]
        apn = "iot.example"
        rat = ["nb-iot", "lte-m"]
        registration_timeout = 300
        signal_poll_interval = 30.5
        product = "bc66-meter"

        [modem.bands]
        nb-iot = [3, 8, 20]
        lte-m = [2, 4]

        [modem.psm]
        enabled = true
        tau = 86400
        active = 60

        [modem.edrx]
        nb-iot = 20.48
        lte-m = 0

        [modem.backoff]
        initial = 2
        cap = 120

        [discovery]
        udev = false

        [[ports]]
        path = "/dev/ttyAMA0"
        baud = 9600

        [[ports]]
        path = "/dev/ttyS1"

        [metrics]
        listen = "127.0.0.1:9100"

        [ingest]
        enabled = true
        listen = "[::1]:8081"
        rate_limit = 20
        burst = 5
        max_body = 4096
        bind_timeout = 5

        [shutdown]
        grace_period = 4

        [log]
        level = "debug"

        [hooks]
        directory = "/etc/nbgw/hooks.d"
        timeout = 2.5
        """

    /// Parses `text`, expecting failure; returns the error.
    func problems(_ text: String, file: String = "/etc/nbgw/nbgwd.toml") throws -> DaemonConfigurationError {
        do {
            _ = try DaemonConfiguration.parse(toml: text, file: file)
        } catch {
            return error
        }
        Issue.record("expected the configuration to be rejected:\n\(text)")
        throw DaemonConfigurationError(file: nil, problems: [])
    }

    @Test("every section of a complete file is read")
    func completeFile() throws {
        let configuration = try DaemonConfiguration.parse(toml: Self.full, file: "full.toml")
        #expect(configuration.store.path == "/var/lib/nbgw/nbgw.sqlite")
        #expect(configuration.cloud == .init(mode: "local"))
        #expect(configuration.modem.apn == "iot.example")
        #expect(configuration.modem.technologies == ["nb-iot", "lte-m"])
        #expect(configuration.modem.bands == ["nb-iot": [3, 8, 20], "lte-m": [2, 4]])
        #expect(configuration.modem.powerSaving == .on(periodicTAU: 86400, activeTime: 60))
        #expect(configuration.modem.edrx == ["nb-iot": 20.48, "lte-m": 0])
        #expect(configuration.modem.registrationTimeout == .seconds(300))
        #expect(configuration.modem.signalPollInterval == .milliseconds(30500))
        #expect(configuration.modem.backoffInitial == .seconds(2))
        #expect(configuration.modem.backoffCap == .seconds(120))
        #expect(configuration.modem.productID == "bc66-meter")
        #expect(configuration.discovery.udev == false)
        #expect(configuration.ports == [.init(path: "/dev/ttyAMA0", baud: 9600), .init(path: "/dev/ttyS1")])
        #expect(configuration.metrics == .init(enabled: true, listen: .init(host: "127.0.0.1", port: 9100)))
        #expect(configuration.ingest.enabled)
        #expect(configuration.ingest.listen == ListenAddress(host: "::1", port: 8081))
        #expect(configuration.ingest.rateLimit == 20)
        #expect(configuration.ingest.burst == 5)
        #expect(configuration.ingest.maxBodyBytes == 4096)
        #expect(configuration.ingest.bindTimeout == .seconds(5))
        #expect(configuration.shutdown.gracePeriod == .seconds(4))
        #expect(configuration.log.level == .debug)
        #expect(configuration.hooks == .init(directory: "/etc/nbgw/hooks.d", timeout: .milliseconds(2500)))
    }

    @Test("an empty file is the built-in defaults, which match the gateway's own")
    func defaults() throws {
        let configuration = try DaemonConfiguration.parse(toml: "", file: "empty.toml")
        #expect(configuration == DaemonConfiguration())
        let gateway = GatewayConfiguration()
        #expect(configuration.modem.registrationTimeout == gateway.registrationTimeout)
        #expect(configuration.modem.signalPollInterval == gateway.signalPollInterval)
        #expect(configuration.modem.backoffInitial == gateway.backoffInitial)
        #expect(configuration.modem.backoffCap == gateway.backoffCap)
        #expect(configuration.modem.maxResets == gateway.maxResets)
        #expect(configuration.modem.simPollInterval == gateway.simPollInterval)
        #expect(configuration.metrics.listen.isLoopback)
        #expect(configuration.ingest.enabled == false)
        #expect(configuration.discovery.udev)
    }

    @Test("every [cloud] setting of the HTTP cloud is read, checked by the cloud, and rendered but the secret")
    func cloudSettingsKeys() throws {
        let text = """
            [cloud]
            url = "https://cloud.example"
            client_id = "abc123"
            secret = "0123456789abcdef0123"
            connect_timeout = 3
            request_timeout = 7
            max_attempts = 2
            label_base = "https://labels.example/d/"
            """
        let configuration = try DaemonConfiguration.parse(toml: text, file: "cloud.toml")
        #expect(configuration.cloud.mode == "http")
        #expect(configuration.cloud.settings.count == 6)
        try configuration.cloud.check(environment: [:])
        let rendered = configuration.renderedTOML()
        #expect(!rendered.contains("0123456789abcdef0123"), "the secret is never rendered")
        #expect(rendered.contains("# secret is set (not shown)"))
        var expected = configuration
        expected.cloud.settings["secret"] = nil
        #expect(try DaemonConfiguration.parse(toml: rendered, file: "rendered.toml") == expected)
    }

    @Test("examples/nbgwd.toml documents exactly the built-in defaults")
    func exampleFile() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let path = root.appendingPathComponent("examples/nbgwd.toml").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(try DaemonConfiguration.parse(toml: text, file: path) == DaemonConfiguration())
    }

    @Test("a misspelt key is reported with its section, line and the known keys")
    func unknownKey() throws {
        let error = try problems(
            """
            [modem]
            apn = "iot.example"
            registraton_timeout = 60
            """
        )
        #expect(error.problems.count == 1)
        let problem = try #require(error.problems.first)
        #expect(problem.key == "modem.registraton_timeout")
        #expect(problem.line == 3)
        #expect(problem.message.contains("registration_timeout"))
        #expect(
            "\(error)".hasPrefix("invalid configuration in /etc/nbgw/nbgwd.toml: line 3: modem.registraton_timeout:")
        )
    }

    @Test("wrong types name what was expected and what was found")
    func wrongTypes() throws {
        let error = try problems(
            """
            [modem]
            registration_timeout = "5m"

            [discovery]
            udev = "yes"

            [[ports]]
            path = 7
            """
        )
        let byKey = Dictionary(uniqueKeysWithValues: error.problems.map { ($0.key ?? "", $0) })
        #expect(byKey.count == 3)
        #expect(byKey["modem.registration_timeout"]?.line == 2)
        #expect(byKey["modem.registration_timeout"]?.message.contains("expected a number of seconds") == true)
        #expect(byKey["modem.registration_timeout"]?.message.contains("a string (\"5m\")") == true)
        #expect(byKey["discovery.udev"]?.line == 5)
        #expect(byKey["discovery.udev"]?.message.contains("expected true or false") == true)
        #expect(byKey["ports[0].path"]?.line == 8)
        #expect(byKey["ports[0].path"]?.message.contains("expected a string") == true)
    }

    @Test("bad values are all reported at once, each with a fix")
    func badValues() throws {
        let error = try problems(
            """
            [modem]
            rat = ["nb-iot", "5g"]
            psm = { enabled = true }
            edrx = { lte-m = 2 }

            [modem.backoff]
            initial = 30
            cap = 10

            [[ports]]
            path = "/dev/ttyS0"
            baud = 12345

            [[ports]]
            path = "ttyS1"

            [metrics]
            listen = "localhost"

            [shutdown]
            grace_period = 0

            [log]
            level = "verbose"
            """
        )
        let keys = error.problems.compactMap(\.key)
        #expect(
            keys == [
                "modem.rat", "modem.psm", "modem.edrx.lte-m", "modem.backoff.cap", "ports[0].baud", "ports[1].path",
                "metrics.listen", "shutdown.grace_period", "log.level",
            ]
        )
        #expect(error.problems.map(\.line) == [2, 3, 4, 8, 12, 15, 18, 21, 24])
        #expect(error.problems[0].message.contains("\"5g\""))
        #expect(error.problems[4].message.contains("115200"))
        #expect("\(error)".contains("(9 problems)"))
    }

    @Test("a TOML syntax error carries TOMLKit's line")
    func syntaxError() throws {
        let error = try problems("[modem]\napn = \"iot\"\nrat = [\"nb-iot\"\n\n[log]\n")
        let problem = try #require(error.problems.first)
        #expect(problem.key == nil)
        #expect(problem.line != nil)
        #expect(problem.message.hasPrefix("TOML syntax error"))
    }

    @Test("precedence: flag over environment over file over default")
    func precedence() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("nbgwd.toml")
        try "[store]\npath = \"/from/file.sqlite\"\n[discovery]\nudev = false\n[[ports]]\npath = \"/dev/ttyS4\"\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        let base = ["HOME": "/home/op"]

        let fromFile = try DaemonConfiguration.load(explicitPath: file, environment: base)
        #expect(fromFile.configuration.store.path == "/from/file.sqlite")
        #expect(fromFile.sources.file == file)

        var environment = base
        environment["NBGW_DB"] = "/from/env.sqlite"
        let fromEnvironment = try DaemonConfiguration.load(explicitPath: file, environment: environment)
        #expect(fromEnvironment.configuration.store.path == "/from/env.sqlite")
        #expect(fromEnvironment.sources.environment == ["NBGW_DB"])

        let fromFlag = try DaemonConfiguration.load(
            explicitPath: file,
            environment: environment,
            overrides: DaemonOverrides(storePath: "/from/flag.sqlite", udev: true, ports: [.init(path: "/dev/pts/9")])
        )
        #expect(fromFlag.configuration.store.path == "/from/flag.sqlite")
        #expect(fromFlag.configuration.discovery.udev)
        #expect(fromFlag.configuration.ports.map(\.path) == ["/dev/ttyS4", "/dev/pts/9"])

        let defaults = try DaemonConfiguration.load(
            explicitPath: nil,
            defaultPath: directory.path("absent.toml"),
            environment: base
        )
        #expect(defaults.sources.file == nil)
        #expect(defaults.configuration.store.path == "/home/op/.local/state/nbgw/nbgw.sqlite")
    }

    @Test("the cloud: NBGW_CLOUD_URL over the file; an HTTP cloud without credentials says where to put them")
    func cloudSelection() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("nbgwd.toml")
        try "[cloud]\nmode = \"local\"\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect {
            try DaemonConfiguration.load(
                explicitPath: file,
                environment: ["NBGW_CLOUD_URL": "https://openapi.tuyaeu.com"]
            )
        } throws: { error in
            "\(error)".contains("NBGW_CLOUD_CLIENT_ID")
                && (error as? DaemonConfigurationError)?.problems.first?.key == "cloud"
        }
        let loaded = try DaemonConfiguration.load(
            explicitPath: file,
            environment: [
                "NBGW_CLOUD_URL": "https://openapi.tuyaeu.com", "NBGW_CLOUD_CLIENT_ID": "id",
                "NBGW_CLOUD_SECRET": "s3cr3t-value",
            ]
        )
        #expect(loaded.configuration.cloud.mode == "http")
        #expect(loaded.configuration.cloud.url == "https://openapi.tuyaeu.com")
        let local = try DaemonConfiguration.load(
            explicitPath: file,
            environment: ["NBGW_CLOUD_URL": "https://openapi.tuyaeu.com"],
            overrides: DaemonOverrides(cloud: "local")
        )
        #expect(local.configuration.cloud.mode == "local")
    }

    @Test("[cloud] modes come from the adapter catalogue; an adapter's keys belong to its mode; sync_wait is read")
    func cloudModesAndKeys() throws {
        let http = try DaemonConfiguration.parse(
            toml: "[cloud]\nurl = \"https://openapi.tuyaeu.com\"\nsync_wait = 0.5\n",
            file: "c.toml"
        )
        #expect(http.cloud.mode == "http" && http.cloud.syncWait == .milliseconds(500))
        #expect(http.renderedTOML().contains("sync_wait = 0.5"))
        let unknown = try problems("[cloud]\nmode = \"ftp\"\n")
        #expect(unknown.problems.first?.key == "cloud.mode")
        #expect(unknown.problems.first?.message.contains("\"local\", \"http\"") == true)
        let stray = try problems("[cloud]\nmode = \"local\"\nclient_id = \"id\"\n")
        #expect(stray.problems.first?.key == "cloud.client_id")
        #expect(stray.problems.first?.message.contains("not a setting of mode \"local\"") == true)
        let slow = try problems("[cloud]\nsync_wait = 600\n")
        #expect(slow.problems.first?.key == "cloud.sync_wait")
        #expect {
            try DaemonConfiguration.load(
                explicitPath: nil,
                defaultPath: "/nonexistent/nbgwd.toml",
                environment: [:],
                overrides: DaemonOverrides(cloud: "gopher://example.org")
            )
        } throws: { error in
            (error as? DaemonConfigurationError)?.problems.first?.key == "--cloud"
                && "\(error)".contains("names no known cloud")
        }
    }

    @Test("a file holding the cloud secret must not be readable by others")
    func secretFilePermissions() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("nbgwd.toml")
        try
            "[cloud]\nmode = \"http\"\nurl = \"https://openapi.tuyaeu.com\"\nclient_id = \"id\"\nsecret = \"s3cr3t-value\"\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        #expect {
            try DaemonConfiguration.load(explicitPath: file, environment: [:])
        } throws: { error in
            let problem = (error as? DaemonConfigurationError)?.problems.first
            return problem?.key == "cloud.secret" && problem?.line == 5
                && problem?.message.contains("chmod 600") == true
                && !"\(error)".contains("s3cr3t")
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        let loaded = try DaemonConfiguration.load(explicitPath: file, environment: [:])
        #expect(loaded.configuration.cloud.settings["secret"] == "s3cr3t-value")
        #expect(!loaded.configuration.renderedTOML().contains("s3cr3t"))
    }

    @Test("a missing --config file, an exposed ingest API and a daemon with nothing to watch are refused")
    func mergedValidation() throws {
        let directory = try TemporaryDirectory()
        #expect {
            try DaemonConfiguration.load(explicitPath: directory.path("missing.toml"), environment: [:])
        } throws: { error in
            "\(error)".contains("missing.toml") && "\(error)".contains("does not exist")
        }
        #expect {
            try DaemonConfiguration.load(
                explicitPath: nil,
                defaultPath: directory.path("absent.toml"),
                environment: [:],
                overrides: DaemonOverrides(ingestEnabled: true, ingestListen: .init(host: "0.0.0.0", port: 8080))
            )
        } throws: { error in
            (error as? DaemonConfigurationError)?.problems.first?.key == "ingest.listen"
        }
        #expect {
            try DaemonConfiguration.load(
                explicitPath: nil,
                defaultPath: directory.path("absent.toml"),
                environment: [:],
                overrides: DaemonOverrides(udev: false)
            )
        } throws: { error in
            (error as? DaemonConfigurationError)?.problems.first?.key == "discovery.udev"
        }
    }

    @Test("the rendered effective configuration parses back to the same configuration")
    func roundTrip() throws {
        let configuration = try DaemonConfiguration.parse(toml: Self.full, file: "full.toml")
        let rendered = configuration.renderedTOML()
        #expect(try DaemonConfiguration.parse(toml: rendered, file: "rendered.toml") == configuration)
    }

    @Test("the modem section becomes the gateway's bring-up plan and timing")
    func gatewayConfiguration() throws {
        let modem = try DaemonConfiguration.parse(toml: Self.full, file: "full.toml").modem
        let gateway = modem.gatewayConfiguration
        #expect(gateway.plan.apn == "iot.example")
        #expect(gateway.plan.technologies?.map(\.rawValue) == ["nb-iot", "lte-m"])
        #expect(Dictionary(uniqueKeysWithValues: gateway.plan.bands.map { ($0.key.rawValue, $0.value) }) == modem.bands)
        #expect(gateway.plan.powerSaving?.periodicTAU == 86400)
        #expect(gateway.plan.powerSaving?.activeTime == 60)
        #expect(gateway.plan.powerSavingDisabled == false)
        let edrx = Dictionary(uniqueKeysWithValues: gateway.plan.edrx.map { ($0.key.rawValue, $0.value) })
        let expected: [String: Double?] = ["nb-iot": 20.48, "lte-m": nil]
        #expect(edrx == expected)
        #expect(gateway.registrationTimeout == .seconds(300))
        #expect(gateway.backoffInitial == .seconds(2))
        #expect(gateway.backoffCap == .seconds(120))
        #expect(gateway.productID == "bc66-meter")
    }

    @Test("listen addresses: host:port, bracketed IPv6, port 0; garbage refused")
    func listenAddresses() {
        #expect(ListenAddress(parsing: "127.0.0.1:9464") == ListenAddress(host: "127.0.0.1", port: 9464))
        #expect(ListenAddress(parsing: "[::1]:0") == ListenAddress(host: "::1", port: 0))
        #expect(ListenAddress(parsing: "localhost:8080")?.isLoopback == true)
        #expect(ListenAddress(parsing: "0.0.0.0:8080")?.isLoopback == false)
        #expect(ListenAddress(host: "::1", port: 80).description == "[::1]:80")
        for bad in ["localhost", ":80", "host:70000", "host:-1", "::1:80", "a b:1", "[::1]80"] {
            #expect(ListenAddress(parsing: bad) == nil, "\(bad)")
        }
    }
}
