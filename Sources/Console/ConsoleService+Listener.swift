import Cloud
import Hummingbird
import Ingest
import Logging
import Registry

extension ConsoleService {
    /// The console's settings for a listener with `ingest`'s: cookies `Secure` (and `__Host-`)
    /// whenever it speaks HTTPS or is reached through a TLS proxy (a non-loopback listener, or an
    /// `https` public origin), uploads in `console-batches/` beside the store; the batch limits at
    /// their defaults (the daemon sets its `[console]` ones on top).
    public static func configuration(
        ingest: IngestConfiguration,
        controlSocket: String?,
        storePath: String
    ) -> ConsoleConfiguration {
        ConsoleConfiguration(
            secureCookies: ingest.tls != nil || !ingest.isLoopback
                || ingest.publicOrigin?.lowercased().hasPrefix("https://") == true,
            scheme: ingest.scheme,
            publicOrigin: ingest.publicOrigin,
            controlSocket: controlSocket,
            batchDirectory: ConsoleConfiguration.defaultBatchDirectory(storePath: storePath),
            bindTimeout: ingest.bindTimeout
        )
    }

    /// The ingest API and the console on one listener, from parts made beforehand: the daemon keeps
    /// `parts.batches` to sweep them and to stop them at its graceful stop (its `console-batches`
    /// service).
    public static func buildApplication(
        ingest configuration: IngestConfiguration,
        parts: Parts,
        registry: Registry,
        cloud: any CloudService,
        logger: Logger,
        onServerRunning: @escaping @Sendable (_ host: String, _ port: Int) async -> Void = { _, _ in }
    ) throws -> some ApplicationProtocol {
        try IngestService.buildApplication(
            configuration: configuration,
            responder: buildResponder(
                ingest: configuration,
                parts: parts,
                registry: registry,
                cloud: cloud,
                logger: logger
            ),
            logger: logger,
            onServerRunning: onServerRunning
        )
    }
}
