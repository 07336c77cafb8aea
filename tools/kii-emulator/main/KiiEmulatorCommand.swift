import ArgumentParser
import Foundation
import KiiEmulatorKit
import Logging

/// `nbgw-kii-emulator`: serves the part of Kii's REST API nbgw uses, on loopback, for the demo and
/// evaluators. The owner and its token come from the environment (never from arguments):
/// `NBGW_KII_OWNER` (`USER:<id>`) and `NBGW_KII_OWNER_TOKEN`, the variables nbgw reads.
@main
struct KiiEmulatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nbgw-kii-emulator",
        abstract: "A local Kii (Thing-IF onboarding, things, ownership, users) with fault injection.",
        discussion: """
            The owner: NBGW_KII_OWNER (USER:<id>) and NBGW_KII_OWNER_TOKEN in the environment (the token is \
            never taken from the command line). Faults can also be changed while running with \
            PUT /admin/faults (docs/cloud.md). Prints "listening on kii+http://HOST:PORT/APP_ID" once ready.
            """
    )

    @Option(help: "Address to listen on. Keep loopback: the emulator speaks plain HTTP.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0: any free port).")
    var port = 8788

    @Option(help: "The emulator's SQLite file (created if missing).")
    var db = "nbgw-kii-emulator.sqlite"

    @Option(name: .customLong("app-id"), help: "The Kii app id it serves.")
    var appID = "nbgwdemo"

    @Option(name: .customLong("user"), help: "A user (login name) to create, as an nbgw account; repeatable.")
    var users: [String] = []

    @Flag(
        name: .customLong("require-thing-password"),
        help: "Require the thing's password to add an owner (the app setting requirePasswordForThingOwnership)."
    )
    var requireThingPassword = false

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

    @Option(help: "Fault: answer the next N authenticated requests with HTTP 401 (an expired token).")
    var expiredTokens = 0

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel = "info"

    func run() async throws {
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        var logger = Logger(label: "nbgw.kii-emulator")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        let environment = ProcessInfo.processInfo.environment
        guard let owner = environment["NBGW_KII_OWNER"], let token = environment["NBGW_KII_OWNER_TOKEN"],
            owner.lowercased().hasPrefix("user:"), owner.count > 5, token.count >= 8
        else {
            throw ValidationError(
                "set NBGW_KII_OWNER (USER:<id>) and NBGW_KII_OWNER_TOKEN (8 or more characters) in the environment: "
                    + "the gateway's owner the emulator accepts"
            )
        }
        let emulator = try KiiEmulator(
            configuration: KiiEmulatorConfiguration(
                host: host,
                port: port,
                databasePath: db,
                appID: appID,
                ownerUserID: String(owner.dropFirst(5)),
                ownerToken: token,
                users: users,
                faults: KiiEmulatorFaults(
                    latencyMs: latencyMs,
                    serverErrors: fail5xx,
                    rateLimits: rateLimit,
                    retryAfterSeconds: retryAfter,
                    dropConnections: dropConnections,
                    dropAfterProcessing: dropAfterProcessing,
                    expiredTokens: expiredTokens
                ),
                requireThingPassword: requireThingPassword
            ),
            logger: logger
        )
        let host = self.host
        let appID = self.appID
        try await emulator.runUntilSignalled { port in
            // Unbuffered, so a script waiting for this line sees it at once.
            let line = "nbgw-kii-emulator listening on kii+http://\(host):\(port.map(String.init) ?? "?")/\(appID)\n"
            FileHandle.standardOutput.write(Data(line.utf8))
        }
    }
}
