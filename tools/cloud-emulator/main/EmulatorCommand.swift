import ArgumentParser
import CloudEmulatorKit
import Foundation
import Logging

/// `nbgw-cloud-emulator`: serves nbgw's cloud profile on loopback for the demo and evaluators.
/// Credentials come from the environment (never from arguments): `NBGW_CLOUD_CLIENT_ID` and
/// `NBGW_CLOUD_SECRET`, the same variables nbgw reads.
@main
struct EmulatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nbgw-cloud-emulator",
        abstract: "A local cloud speaking nbgw's Tuya-style OpenAPI profile, with fault injection.",
        discussion: """
            Credentials: NBGW_CLOUD_CLIENT_ID and NBGW_CLOUD_SECRET in the environment (the secret is \
            never taken from the command line). Faults can also be changed while running with a signed \
            PUT /admin/faults (docs/cloud.md). Prints "listening on http://HOST:PORT" once ready.
            """
    )

    @Option(help: "Address to listen on. Keep loopback: the emulator speaks plain HTTP.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0: any free port).")
    var port = 8787

    @Option(help: "The emulator's SQLite file (created if missing).")
    var db = "nbgw-cloud-emulator.sqlite"

    @Option(help: "Label URL prefix of the labels it issues.")
    var labelBase = "https://label.nbgw-cloud.invalid/d/"

    @Option(help: "Access token lifetime in seconds (Tuya: 7200).")
    var tokenLifetime = 7200

    @Option(help: "Pairing token lifetime in seconds (10 minutes).")
    var pairingTokenLifetime = 600

    @Option(help: "Largest accepted difference between a request's t and the emulator's clock, in seconds.")
    var allowedSkew = 300

    @Option(help: "Fault: delay every answer by this many milliseconds.")
    var latencyMs = 0

    @Option(name: .customLong("fail-5xx"), help: "Fault: answer the next N requests with HTTP 503.")
    var fail5xx = 0

    @Option(help: "Fault: answer the next N requests with HTTP 429 and Retry-After.")
    var rateLimit = 0

    @Option(help: "Retry-After seconds sent with 429 answers.")
    var retryAfter = 1

    @Option(help: "Fault: close the connection of the next N requests without processing them.")
    var dropConnections = 0

    @Option(help: "Fault: process the next N state-changing requests, then close the connection unanswered.")
    var dropAfterProcessing = 0

    @Option(help: "Fault: shift the emulator's clock by this many milliseconds (beyond the allowed skew: code 1013).")
    var clockSkewMs: Int64 = 0

    @Option(help: "Fault: answer the next N business requests with code 1010 (token expired).")
    var expiredTokens = 0

    @Option(help: "Fault: answer the next N requests with the busy code.")
    var busy = 0

    @Option(help: "The busy code: 1110, 1111 or 1199.")
    var busyCode = 1111

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel = "info"

    func run() async throws {
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        var logger = Logger(label: "nbgw.cloud-emulator")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        let environment = ProcessInfo.processInfo.environment
        guard let clientID = environment["NBGW_CLOUD_CLIENT_ID"], let secret = environment["NBGW_CLOUD_SECRET"] else {
            throw ValidationError(
                "set NBGW_CLOUD_CLIENT_ID and NBGW_CLOUD_SECRET in the environment: the project the emulator accepts"
            )
        }
        let faults = EmulatorFaults(
            latencyMs: latencyMs,
            serverErrors: fail5xx,
            rateLimits: rateLimit,
            retryAfterSeconds: retryAfter,
            dropConnections: dropConnections,
            dropAfterProcessing: dropAfterProcessing,
            clockSkewMs: clockSkewMs,
            expiredTokens: expiredTokens,
            busyResponses: busy,
            busyCode: busyCode
        )
        if let problem = faults.problem {
            throw ValidationError(problem)
        }
        let configuration = try EmulatorConfiguration.make(
            host: host,
            port: port,
            databasePath: db,
            clientID: clientID,
            secret: secret,
            tokenLifetime: .seconds(tokenLifetime),
            pairingTokenLifetime: .seconds(pairingTokenLifetime),
            allowedClockSkew: .seconds(allowedSkew),
            labelBase: labelBase,
            faults: faults
        )
        let emulator = try CloudEmulator(configuration: configuration, logger: logger)
        let host = self.host
        try await emulator.runUntilSignalled { port in
            // Unbuffered, so a script waiting for this line sees it at once.
            let line = "nbgw-cloud-emulator listening on http://\(host):\(port.map(String.init) ?? "?")\n"
            FileHandle.standardOutput.write(Data(line.utf8))
        }
    }
}
