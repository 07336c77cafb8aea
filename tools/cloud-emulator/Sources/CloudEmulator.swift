import Foundation
import Hummingbird
import Logging

/// An in-process cloud for tests, the demo and evaluators: nbgw's cloud profile over HTTP with real
/// signature checks, token expiry and refresh, strong binding, pairing-token rules and injected
/// faults, backed by its own SQLite file.
///
/// ```swift
/// let running = try await CloudEmulator(configuration: configuration, logger: logger).start()
/// // … talk to running.baseURL …
/// await running.stop()
/// ```
public struct CloudEmulator: Sendable {
    public let configuration: EmulatorConfiguration
    public let store: EmulatorStore
    public let faults: FaultInjector
    let logger: Logger

    /// Opens (creating and migrating) the emulator's store.
    ///
    /// - Parameter logger: one line per request (method, route, status, code, fault); nil: silent.
    public init(configuration: EmulatorConfiguration, logger: Logger? = nil) throws {
        self.configuration = configuration
        self.store = try EmulatorStore(path: configuration.databasePath, credentials: configuration.credentials)
        self.faults = FaultInjector(configuration.faults)
        self.logger = logger ?? Logger(label: "nbgw.cloud-emulator", factory: { _ in SwiftLogNoOpLogHandler() })
        if configuration.faults.expireAllTokens {
            try store.expireAllTokens()
        }
    }

    /// The Hummingbird application; `onRunning` gets the bound port.
    public func application(
        onRunning: @escaping @Sendable (Int?) async -> Void = { _ in }
    ) -> Application<EmulatorResponder> {
        Application(
            responder: EmulatorResponder(configuration: configuration, store: store, faults: faults, logger: logger),
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port),
                serverName: "nbgw-cloud-emulator"
            ),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port) },
            logger: logger
        )
    }

    /// Starts serving in a background task and returns once the port is bound.
    public func start() async throws -> RunningCloudEmulator {
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
            do {
                try await task.value
            } catch {
                throw error
            }
            throw CloudEmulatorError("the emulator stopped before listening on \(configuration.host)")
        }
        return RunningCloudEmulator(
            host: configuration.host,
            port: port,
            store: store,
            faults: faults,
            task: task
        )
    }

    /// Serves until SIGINT or SIGTERM (the executable).
    public func runUntilSignalled(onRunning: @escaping @Sendable (Int?) async -> Void) async throws {
        try await application(onRunning: onRunning).runService()
    }
}

/// The emulator could not start.
public struct CloudEmulatorError: Error, CustomStringConvertible {
    public var description: String

    init(_ description: String) { self.description = description }
}
