import ArgumentParser
import Foundation
import Ingest
import Logging
import Pairing

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
            Plain HTTP on loopback by default. To expose it, put a TLS-terminating proxy in front; \
            binding a non-loopback address needs --insecure-expose.
            """
    )

    @OptionGroup var store: StoreOptions

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

    @Flag(name: .customLong("insecure-expose"), help: "Allow a non-loopback address without TLS.")
    var insecureExpose = false

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "notice"

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535") }
        guard rateLimit >= 0 else { throw ValidationError("--rate-limit must be 0 or more") }
        guard (256...1_048_576).contains(maxBody) else { throw ValidationError("--max-body must be 256 to 1048576") }
        guard timeout > 0, timeout <= 3600 else { throw ValidationError("--timeout must be between 0 and 3600") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level \(logLevel)") }
    }

    func run() async throws {
        try await Output.run(json: store.json) {
            let configuration = IngestConfiguration(
                host: host,
                port: port,
                maxBodyBytes: maxBody,
                rateLimit: rateLimit > 0
                    ? .init(requestsPerSecond: rateLimit, burst: burst ?? max(1, Int(rateLimit * 2))) : nil,
                bindTimeout: .milliseconds(Int64(timeout * 1000))
            )
            guard configuration.isLoopback || insecureExpose else {
                throw NBGWError(
                    .invalidArgument,
                    "\(host) is not a loopback address and the ingest API speaks plain HTTP: put a TLS proxy in "
                        + "front and pass --insecure-expose, or listen on 127.0.0.1"
                )
            }
            var logger = Logger(label: "nbgw.ingest")
            logger.logLevel = Logger.Level(rawValue: logLevel) ?? .notice
            let registry = try store.openRegistry()
            let json = store.json
            try await store.withCloud(registry) { cloud in
                let app = try IngestService.buildApplication(
                    configuration: configuration,
                    registry: registry,
                    cloud: cloud,
                    logger: logger
                ) { host, port in
                    if json {
                        Output.json(["status": "listening", "host": host, "port": String(port)])
                    } else {
                        Output.line("listening on http://\(host):\(port) (Ctrl-C to stop)")
                    }
                }
                try await app.runService()
            }
        }
    }
}
