import ArgumentParser
import Console
import Foundation
import Ingest
import Logging
import NBGWCore
import PosixSupport

/// `nbgw ingest`: the QR ingest HTTP API (docs/ingest.md).
struct IngestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "The QR ingest HTTP API (docs/ingest.md).",
        subcommands: [IngestServe.self]
    )
}

struct IngestServe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the ingest API in the foreground until SIGINT or SIGTERM.",
        discussion: """
            Plain HTTP on loopback by default. To expose it, serve HTTPS with --tls-certificate and \
            --tls-key (PEM files, TLS 1.2 or newer; the key must not be readable by other users); \
            a non-loopback address without them needs --insecure-expose (a TLS-terminating proxy in front).
            """
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var cloudOptions: CloudOptions

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "TCP port (0: any free port).")
    var port = 8080

    @Option(name: .customLong("rate-limit"), help: "Requests per second per API key (0: no limit).")
    var rateLimit: Double = 50

    @Option(help: "Burst per API key (default: twice the rate).")
    var burst: Int?

    @Option(name: .customLong("max-body"), help: "Largest request body in bytes.")
    var maxBody = 16 * 1024

    @Option(help: "Activation timeout of a bind in seconds.")
    var timeout: Double = 10

    @Option(
        name: .customLong("tls-certificate"),
        help: ArgumentHelp(
            "Serve HTTPS with this certificate chain (PEM, server's first); needs --tls-key.",
            valueName: "path"
        )
    )
    var tlsCertificate: String?

    @Option(
        name: .customLong("tls-key"),
        help: ArgumentHelp(
            "The certificate's private key (PEM, unencrypted, mode 600); needs --tls-certificate.",
            valueName: "path"
        )
    )
    var tlsKey: String?

    @Flag(name: .customLong("insecure-expose"), help: "Allow a non-loopback address without TLS.")
    var insecureExpose = false

    @Option(
        name: .customLong("max-connections"),
        help: "Connections open at once (more wait in the backlog); at most half the descriptor limit."
    )
    var maxConnections = IngestConnectionLimits().maxConnections

    @Option(name: .customLong("max-connections-per-client"), help: "Connections one client address may hold.")
    var maxConnectionsPerClient = IngestConnectionLimits().maxConnectionsPerClient

    @Option(
        name: .customLong("public-origin"),
        help: ArgumentHelp("The origin browsers use behind a TLS proxy (https://gw.example).", valueName: "origin")
    )
    var publicOrigin: String?

    @Option(
        name: .customLong("trusted-proxy"),
        help: ArgumentHelp("A proxy whose X-Forwarded-For is believed (IP address; repeatable).", valueName: "ip")
    )
    var trustedProxies: [String] = []

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "notice"

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535") }
        guard rateLimit >= 0 else { throw ValidationError("--rate-limit must be 0 or more") }
        guard (256...1_048_576).contains(maxBody) else { throw ValidationError("--max-body must be 256 to 1048576") }
        guard timeout > 0, timeout <= 3600 else { throw ValidationError("--timeout must be between 0 and 3600") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level \(logLevel)") }
        guard (16...65_536).contains(maxConnections) else {
            throw ValidationError("--max-connections must be 16 to 65536")
        }
        guard (1...65_536).contains(maxConnectionsPerClient) else {
            throw ValidationError("--max-connections-per-client must be 1 to 65536")
        }
        for proxy in trustedProxies where !IngestRequestContext.isIPAddress(proxy) {
            throw ValidationError("--trusted-proxy \(proxy) is not an IP address (names are not resolved)")
        }
        if let publicOrigin, !publicOrigin.lowercased().hasPrefix("https://"),
            !publicOrigin.lowercased().hasPrefix("http://")
        {
            throw ValidationError("--public-origin must start with https:// (or http://), e.g. https://gw.example")
        }
        guard (tlsCertificate == nil) == (tlsKey == nil) else {
            throw ValidationError(
                "\(tlsCertificate == nil ? "--tls-key needs --tls-certificate" : "--tls-certificate needs --tls-key"): "
                    + "pass both PEM files to serve HTTPS, or neither for plain HTTP"
            )
        }
    }

    func run() async throws {
        try await Output.run(json: store.json) {
            var configuration = IngestConfiguration(
                host: host,
                port: port,
                maxBodyBytes: maxBody,
                rateLimit: rateLimit > 0
                    ? .init(requestsPerSecond: rateLimit, burst: burst ?? max(1, Int(rateLimit * 2))) : nil,
                bindTimeout: .milliseconds(Int64(timeout * 1000))
            )
            configuration.connectionLimits.maxConnections = maxConnections
            configuration.connectionLimits.maxConnectionsPerClient = maxConnectionsPerClient
            configuration.connectionLimits = configuration.connectionLimits.capped(
                toDescriptorLimit: Posix.raiseDescriptorLimit(toAtMost: 4096).soft
            )
            configuration.publicOrigin = publicOrigin
            configuration.trustedProxies = Set(trustedProxies)
            // Before anything else: a wrong certificate or key stops the command at once.
            if let tlsCertificate, let tlsKey {
                do throws(IngestTLSError) {
                    configuration.tls = try IngestTLS.load(certificate: tlsCertificate, key: tlsKey)
                } catch {
                    throw NBGWError(.invalidArgument, error.message)
                }
            }
            guard configuration.isLoopback || configuration.tls != nil || insecureExpose else {
                throw NBGWError(
                    .invalidArgument,
                    "\(host) is not a loopback address and the ingest API would speak plain HTTP: serve HTTPS with "
                        + "--tls-certificate and --tls-key, or put a TLS proxy in front and pass --insecure-expose, "
                        + "or listen on 127.0.0.1"
                )
            }
            var logger = Logger(label: "nbgw.ingest")
            logger.logLevel = Logger.Level(rawValue: logLevel) ?? .notice
            let registry = try store.openRegistry()
            let json = store.json
            configuration.cloudWait = try cloudOptions.cloudWait()
            try await cloudOptions.withCloud { [configuration] cloud in
                let scheme = configuration.scheme
                // The web console answers beside the API (docs/console.md); modem actions go to the
                // daemon's control socket when one runs.
                let app = try ConsoleService.buildApplication(
                    ingest: configuration,
                    controlSocket: DaemonControl.socketPath(),
                    registry: registry,
                    cloud: cloud,
                    logger: logger
                ) { host, port in
                    if json {
                        Output.json(["status": "listening", "scheme": scheme, "host": host, "port": String(port)])
                    } else {
                        Output.line("listening on \(scheme)://\(host):\(port) (Ctrl-C to stop)")
                    }
                }
                try await app.runService()
            }
        }
    }
}
