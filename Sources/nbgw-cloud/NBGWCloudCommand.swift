import ArgumentParser
import CloudServer
import FleetCloud
import Foundation
import Logging
import NIOCore
import NIOPosix
import ServerSupport

/// `nbgw-cloud`: the fleet's Private Cloud (docs/fleet.md): stateless nodes serving the signed
/// cloud API on one PostgreSQL database, and the operator's commands for tenants, gateways and
/// their secrets.
@main
struct NBGWCloudCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nbgw-cloud",
        abstract: "The fleet cloud: stateless nodes on PostgreSQL serving nbgw's signed cloud API.",
        discussion: """
            Every command reaches PostgreSQL through --database (or NBGW_CLOUD_DATABASE), a URL without a
            password; the password comes from --database-password-file or NBGW_CLOUD_DATABASE_PASSWORD.
            Gateways' secrets are sealed under --key-file (0600; `nbgw-cloud key create` makes one).
            """,
        subcommands: [
            ServeCommand.self, MigrateCommand.self, KeyCommand.self, TenantsCommand.self, GatewaysCommand.self,
            OperatorsCommand.self, CredentialsCommand.self, IMEIsCommand.self, PurgeCommand.self,
        ]
    )

    /// Runs Swift Concurrency's tasks on NIO's event loops (the threads the HTTP connections and the
    /// database connections already live on) instead of a pool of their own.
    ///
    /// Why: a bind is two requests and a dozen statements, and every statement's answer arrived on
    /// an event loop and resumed its request on the concurrency pool: a thread switch per
    /// statement. Profiled under `tools/bench-cloud.sh` (perf, a node capped to half a core), 41 %
    /// of the node's CPU time was the kernel's, most of it switching threads.
    static func main() async {
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        await main(nil)
    }
}

/// Where the database and the key file are.
struct DatabaseOptions: ParsableArguments {
    @Option(help: "The config file (default: $NBGW_CLOUD_CONFIG, else /etc/nbgw/nbgw-cloud.toml when it exists).")
    var config: String?

    @Option(help: "postgresql://USER@HOST[:PORT]/DATABASE, no password (default: $NBGW_CLOUD_DATABASE).")
    var database: String?

    @Option(help: "A file holding the database password (default: $NBGW_CLOUD_DATABASE_PASSWORD).")
    var databasePasswordFile: String?

    @Option(
        name: .customLong("key-file"),
        help: "The key that seals gateways' secrets (32 bytes, mode 0600; default /etc/nbgw/nbgw-cloud.key)."
    )
    var keyFileOption: String?

    /// The config file's settings (empty when there is none).
    func file() throws -> CloudConfigFile {
        try CloudConfigFile.load(explicit: config, environment: ProcessInfo.processInfo.environment)
    }

    /// `--key-file`, else the file's `key_file`, else the default.
    var keyFile: String {
        get throws { try keyFileOption ?? file().string("key_file") ?? "/etc/nbgw/nbgw-cloud.key" }
    }

    func fleetDatabase(maximumConnections: Int = 16) throws -> FleetDatabase {
        let environment = ProcessInfo.processInfo.environment
        let file = try file()
        guard let url = database ?? environment["NBGW_CLOUD_DATABASE"] ?? file.string("database") else {
            throw ValidationError(
                "no database: pass --database postgresql://USER@HOST:PORT/DB, set NBGW_CLOUD_DATABASE, or set "
                    + "database in the config file"
            )
        }
        var password = environment["NBGW_CLOUD_DATABASE_PASSWORD"]
        if let file = databasePasswordFile ?? (password == nil ? file.string("database_password_file") : nil) {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw ValidationError("cannot read the database password file \(file)")
            }
            password = text.trimmingCharacters(in: .newlines)
        }
        return try FleetDatabase(url: url, password: password, maximumConnections: maximumConnections)
    }

    /// Runs `body` with a store whose connection pool runs meanwhile.
    func withStore<T: Sendable>(
        needsKey: Bool = true,
        maximumConnections: Int = 4,
        logger: Logger,
        _ body: @Sendable (FleetStore) async throws -> T
    ) async throws -> T {
        let database = try fleetDatabase(maximumConnections: maximumConnections)
        let secrets = needsKey ? try FleetSecrets(keyFile: keyFile) : FleetSecrets.unusable
        try await database.probe(logger: logger)
        let store = FleetStore(database: database, secrets: secrets, logger: logger)
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                await store.run()
                return nil
            }
            defer { group.cancelAll() }
            do {
                return try await body(store)
            } catch let error as FleetError {
                throw error
            } catch {
                throw FleetError("\(database.displayURL): \(FleetDatabase.describe(error))")
            }
        }
    }
}

/// Milliseconds since the epoch, now.
func nowMillis() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }

/// Quiet unless asked: the commands print their own results.
func commandLogger() -> Logger {
    var logger = Logger(label: "nbgw-cloud")
    logger.logLevel = .warning
    return logger
}

struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Applies the schema migrations the database lacks (once, under a lock)."
    )

    @OptionGroup var options: DatabaseOptions

    func run() async throws {
        let applied = try await options.withStore(needsKey: false, logger: commandLogger()) { store in
            try await store.migrate()
        }
        print(applied.isEmpty ? "schema up to date" : "applied migrations \(applied.map(String.init).joined(separator: ", "))")
    }
}

struct KeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key",
        abstract: "The key file that seals gateways' secrets.",
        subcommands: [Create.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Creates a new key file (mode 0600); never overwrites one.")

        @Option(help: "Where to write the key.")
        var keyFile: String = "/etc/nbgw/nbgw-cloud.key"

        func run() async throws {
            try FleetSecrets.create(keyFile: keyFile)
            print("created \(keyFile) (mode 0600); copy it to every node, never into the database")
        }
    }
}

struct TenantsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tenants",
        abstract: "Tenants: the companies or sites whose gateways share modules and homes.",
        subcommands: [Add.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Adds a tenant.")
        @OptionGroup var options: DatabaseOptions
        @Argument(help: "The tenant's id: 1 to 63 of a-z 0-9 -.") var tenant: String

        func run() async throws {
            let tenant = self.tenant
            let added = try await options.withStore(needsKey: false, logger: commandLogger()) { store in
                try await store.addTenant(tenant, now: nowMillis())
            }
            print(added ? "added tenant \(tenant)" : "tenant \(tenant) exists")
        }
    }
}

struct GatewaysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gateways",
        abstract: "Gateways: each signs with its own client id and secret.",
        subcommands: [Add.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Adds a gateway and prints its client id and secret, once."
        )
        @OptionGroup var options: DatabaseOptions
        @Option(help: "The gateway's tenant.") var tenant: String
        @Argument(help: "The gateway's name within its tenant.") var name: String
        @Flag(help: "Print the credentials as JSON.") var json = false

        func run() async throws {
            let (tenant, name) = (self.tenant, self.name)
            let credentials = try await options.withStore(logger: commandLogger()) { store in
                try await store.addGateway(tenant: tenant, name: name, now: nowMillis())
            }
            printCredentials(credentials, json: json)
        }
    }
}

struct OperatorsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "operators",
        abstract: "Operators' credentials: sign like a gateway, and may also transfer, freeze and delete devices.",
        discussion: """
            Device management's changes take an operator's credential; a gateway's is refused with code
            1106. Rotate and retire an operator's secret with `credentials`, by its name.
            """,
        subcommands: [Add.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Adds an operator's credential and prints its client id and secret, once."
        )
        @OptionGroup var options: DatabaseOptions
        @Option(help: "The operator's tenant.") var tenant: String
        @Argument(help: "The operator's name within its tenant (shares names with gateways).") var name: String
        @Flag(help: "Print the credentials as JSON.") var json = false

        func run() async throws {
            let (tenant, name) = (self.tenant, self.name)
            let credentials = try await options.withStore(logger: commandLogger()) { store in
                try await store.addGateway(tenant: tenant, name: name, role: .operator, now: nowMillis())
            }
            printCredentials(credentials, json: json)
        }
    }
}

struct CredentialsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "credentials",
        abstract: "A gateway's two secret slots: rotate without downtime, then retire the old one.",
        subcommands: [Rotate.self, Retire.self]
    )

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Puts a new secret in the gateway's free slot (or its older one) and prints it, once."
        )
        @OptionGroup var options: DatabaseOptions
        @Option(help: "The gateway's tenant.") var tenant: String
        @Argument(help: "The gateway's name.") var gateway: String
        @Flag(help: "Print the credentials as JSON.") var json = false

        func run() async throws {
            let (tenant, gateway) = (self.tenant, self.gateway)
            let credentials = try await options.withStore(logger: commandLogger()) { store in
                try await store.rotateSecret(tenant: tenant, gateway: gateway, now: nowMillis())
            }
            printCredentials(credentials, json: json)
        }
    }

    struct Retire: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Retires a secret slot once the gateway signs with the other one."
        )
        @OptionGroup var options: DatabaseOptions
        @Option(help: "The gateway's tenant.") var tenant: String
        @Option(help: "The slot to retire (1 or 2).") var slot: Int
        @Argument(help: "The gateway's name.") var gateway: String

        func run() async throws {
            let (tenant, gateway, slot) = (self.tenant, self.gateway, self.slot)
            try await options.withStore(needsKey: false, logger: commandLogger()) { store in
                try await store.retireSecret(tenant: tenant, gateway: gateway, slot: slot)
            }
            print("retired slot \(slot) of \(tenant)/\(gateway); nodes stop accepting it within 5 s")
        }
    }
}

struct IMEIsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imeis",
        abstract: "A tenant's IMEI allow-list (deny by default once imported).",
        subcommands: [Import.self]
    )

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Adds the IMEIs of FILE (one per line; # comments) to the tenant's allow-list and turns it on."
        )
        @OptionGroup var options: DatabaseOptions
        @Option(help: "The tenant.") var tenant: String
        @Argument(help: "A file with one IMEI per line.") var file: String

        func run() async throws {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw ValidationError("cannot read \(file)")
            }
            var imeis: [String] = []
            for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                let imei = line.trimmingCharacters(in: .whitespaces)
                if imei.isEmpty { continue }
                guard imei.count == 15, imei.allSatisfy(\.isASCII), imei.allSatisfy(\.isNumber) else {
                    throw ValidationError("\(file):\(index + 1): \(imei.debugDescription) is not a 15-digit IMEI")
                }
                imeis.append(imei)
            }
            let tenant = self.tenant
            let list = imeis
            let added = try await options.withStore(needsKey: false, logger: commandLogger()) { store in
                try await store.importIMEIs(tenant: tenant, list)
            }
            print("tenant \(tenant): \(added) IMEIs added (\(imeis.count - added) already listed); allow-list on")
        }
    }
}

struct PurgeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purge",
        abstract: "Deletes idempotency records past their 24 h and long-expired access tokens (serve does it hourly)."
    )
    @OptionGroup var options: DatabaseOptions

    func run() async throws {
        let removed = try await options.withStore(needsKey: false, logger: commandLogger()) { store in
            try await store.purge(now: nowMillis())
        }
        print("purged \(removed) rows")
    }
}

func printCredentials(_ credentials: FleetGatewayCredentials, json: Bool) {
    if json {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        if let data = try? encoder.encode(credentials) { print(String(decoding: data, as: UTF8.self)) }
        return
    }
    print(
        """
        tenant:    \(credentials.tenant)
        gateway:   \(credentials.gateway)
        client_id: \(credentials.clientID)
        secret:    \(credentials.secret)   (slot \(credentials.slot); shown once: put it in the gateway's secrets file)
        """
    )
}

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serves the signed cloud API on one node until SIGTERM; run as many nodes as you like on one database."
    )

    @OptionGroup var options: DatabaseOptions

    @Option(help: "HOST:PORT to listen on (the API; default 127.0.0.1:8443).")
    var listen: String?

    @Option(help: "HOST:PORT for Prometheus metrics (off unless given; keep it off the API's network).")
    var metricsListen: String?

    @Option(help: "Pooled database connections of this node (default 16).")
    var databaseConnections: Int?

    @Option(help: "Requests a second per tenant on this node (0: no limit; default 200).")
    var tenantRate: Double?

    @Option(help: "The prefix of the labels the fleet issues and recognises.")
    var labelBase: String?

    @Option(help: "Connections the API listener holds at once; more wait in the kernel's backlog (default 512).")
    var maxConnections: Int?

    @Option(help: "Seconds a connection may stay without a request before it is closed (default 30).")
    var idleTimeout: Int?

    @Option(help: "The longest an event poll waits here, in seconds (0 to 25, the default; a poll may answer early).")
    var eventWaitLimit: Int?

    @Option(help: "PEM certificate chain to serve HTTPS with (server certificate first); reloaded on SIGHUP.")
    var tlsCertificate: String?

    @Option(help: "PEM private key of --tls-certificate: mode 0600, owned by the user running nbgw-cloud.")
    var tlsKey: String?

    func run() async throws {
        let file = try options.file()
        let listen = listen ?? file.string("listen") ?? "127.0.0.1:8443"
        let metricsListen = metricsListen ?? file.string("metrics_listen")
        let databaseConnections = databaseConnections ?? file.integer("database_connections") ?? 16
        let tenantRate = tenantRate ?? file.number("tenant_rate") ?? 200
        let labelBase = labelBase ?? file.string("label_base")
        let maxConnections = maxConnections ?? file.integer("max_connections") ?? 512
        let idleTimeout = idleTimeout ?? file.integer("idle_timeout") ?? 30
        let eventWaitLimit = eventWaitLimit ?? file.integer("event_wait_limit") ?? CloudServerHandler.maximumEventWait
        let tlsCertificate = tlsCertificate ?? file.string("tls_certificate")
        let tlsKey = tlsKey ?? file.string("tls_key")
        var logger = Logger(label: "nbgw-cloud")
        logger.logLevel = ProcessInfo.processInfo.environment["NBGW_CLOUD_LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .notice
        let (host, port) = try Self.address(listen, option: "--listen")
        var node = FleetNode(host: host, port: port, tenantRate: tenantRate, tenantBurst: max(1, Int(tenantRate * 2)))
        if let labelBase { node.settings = .init(labelBase: labelBase) }
        guard (0...CloudServerHandler.maximumEventWait).contains(eventWaitLimit) else {
            throw ValidationError("--event-wait-limit must be 0 to \(CloudServerHandler.maximumEventWait) seconds")
        }
        node.settings.eventWaitLimit = eventWaitLimit
        guard (1...65_536).contains(maxConnections) else {
            throw ValidationError("--max-connections must be 1 to 65536")
        }
        guard (1...3600).contains(idleTimeout) else {
            throw ValidationError("--idle-timeout must be 1 to 3600 seconds")
        }
        node.maxConnections = maxConnections
        node.idleTimeout = .seconds(idleTimeout)
        switch (tlsCertificate, tlsKey) {
        case (let certificate?, let key?):
            do {
                let identity = try TLSIdentity.load(certificate: certificate, key: key, owner: .fleetNode)
                node.tls = TLSIdentityReloader(identity, owner: .fleetNode)
            } catch {
                throw FleetError(error.message)
            }
        case (nil, nil):
            break
        default:
            throw ValidationError("--tls-certificate and --tls-key go together: give both, or neither for plain HTTP")
        }
        if let metricsListen {
            let (metricsHost, metricsPort) = try Self.address(metricsListen, option: "--metrics-listen")
            node.metricsHost = metricsHost
            node.metricsPort = metricsPort
        }
        let database = try options.fleetDatabase(maximumConnections: databaseConnections)
        let store = FleetStore(database: database, secrets: try FleetSecrets(keyFile: try options.keyFile), logger: logger)
        try await database.probe(logger: logger)
        do {
            try await node.run(store: store, logger: logger) { bound in
                // One line a supervisor or a test can wait for.
                FileHandle.standardOutput.write(Data("listening on \(host):\(bound)\n".utf8))
            }
        } catch let error as FleetError {
            throw error
        } catch {
            throw FleetError("\(database.displayURL): \(FleetDatabase.describe(error))")
        }
    }

    static func address(_ text: String, option: String) throws -> (String, Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65535).contains(port)
        else {
            throw ValidationError("\(option) \(text.debugDescription) is not HOST:PORT")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host, port)
    }
}
