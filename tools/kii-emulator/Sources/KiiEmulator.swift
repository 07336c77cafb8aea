import Foundation
import Hummingbird
import Logging

/// An in-process Kii for tests, the demo and evaluators: the Thing-IF onboarding, things,
/// ownership and users that nbgw uses, over real HTTP, with bearer-token and media-type checks
/// and injected faults, backed by its own SQLite file.
///
/// ```swift
/// let running = try await KiiEmulator(configuration: configuration).start()
/// // … talk to running.baseURL …
/// await running.stop()
/// ```
public struct KiiEmulator: Sendable {
    public let configuration: KiiEmulatorConfiguration
    public let store: KiiEmulatorStore
    public let faults: KiiFaultInjector
    let logger: Logger

    /// Opens (creating and migrating) its store and creates the owner and the configured users.
    ///
    /// - Parameter logger: one line per request (route, status, error code, fault); nil: silent.
    public init(configuration: KiiEmulatorConfiguration, logger: Logger? = nil) throws {
        self.configuration = configuration
        self.store = try KiiEmulatorStore(path: configuration.databasePath)
        self.faults = KiiFaultInjector(configuration.faults)
        self.logger = logger ?? Logger(label: "nbgw.kii-emulator", factory: { _ in SwiftLogNoOpLogHandler() })
        try store.ensureUser(
            loginName: KiiEmulatorConfiguration.ownerLoginName,
            id: configuration.ownerUserID,
            token: configuration.ownerToken
        )
        for user in configuration.users {
            try store.ensureUser(loginName: user)
        }
    }

    public func application(
        onRunning: @escaping @Sendable (Int?) async -> Void = { _ in }
    ) -> Application<KiiEmulatorResponder> {
        Application(
            responder: KiiEmulatorResponder(configuration: configuration, store: store, faults: faults, logger: logger),
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port),
                serverName: "nbgw-kii-emulator"
            ),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port) },
            logger: logger
        )
    }

    /// Starts serving in a background task and returns once the port is bound.
    public func start() async throws -> RunningKiiEmulator {
        let (ports, continuation) = AsyncStream<Int?>.makeStream()
        let app = application { port in
            continuation.yield(port)
            continuation.finish()
        }
        let task = Task {
            defer { continuation.finish() }
            try await app.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let bound = await iterator.next(), let port = bound else {
            task.cancel()
            try await task.value
            throw KiiEmulatorError("the Kii emulator stopped before listening on \(configuration.host)")
        }
        return RunningKiiEmulator(emulator: self, port: port, task: task)
    }

    /// Serves until SIGINT or SIGTERM (the executable).
    public func runUntilSignalled(onRunning: @escaping @Sendable (Int?) async -> Void) async throws {
        try await application(onRunning: onRunning).runService()
    }
}

/// A started emulator: where it listens, its state and fault plan, and how to stop it.
public final class RunningKiiEmulator: Sendable {
    public let emulator: KiiEmulator
    public let port: Int
    let task: Task<Void, any Error>

    init(emulator: KiiEmulator, port: Int, task: Task<Void, any Error>) {
        self.emulator = emulator
        self.port = port
        self.task = task
    }

    public var store: KiiEmulatorStore { emulator.store }
    public var faults: KiiFaultInjector { emulator.faults }

    /// `http://HOST:PORT`, the Kii site.
    public var site: String { "http://\(emulator.configuration.host):\(port)" }

    /// What `--cloud` takes: `kii+http://HOST:PORT/APP_ID`.
    public var cloudSpec: String { "kii+\(site)/\(emulator.configuration.appID)" }

    public func stats() throws -> KiiEmulatorStats { try store.stats(faultsFired: faults.firedCounts) }

    /// Stops serving (cancels the server task and waits for it).
    public func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}

/// The emulator could not start.
public struct KiiEmulatorError: Error, CustomStringConvertible {
    public var description: String

    init(_ description: String) { self.description = description }
}
