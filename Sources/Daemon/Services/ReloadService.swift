import Gateway
import Logging
import ServiceLifecycle
import UnixSignals

/// SIGHUP (`systemctl reload nbgwd`, the unit's `ExecReload=`): re-reads the config file and its
/// SIM PIN file and hands the SIM PINs to the gateway, so a module `locked` for want of a PIN goes
/// on without a restart (each PIN is still entered at most once). Other settings take effect at the
/// next start; the log names the sections that changed.
struct ReloadService: Service, CustomStringConvertible {
    let configurationFile: String?
    let environment: [String: String]
    let overrides: DaemonOverrides
    let current: DaemonConfiguration
    let gateway: Gateway
    let logger: Logger

    var description: String { "reload" }

    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        try await cancelWhenGracefulShutdown {
            var applied = current
            for await _ in signals {
                applied = reload(over: applied)
            }
        }
    }

    /// One reload: the new configuration when it loads, else the one in force (the failure logged).
    func reload(over applied: DaemonConfiguration) -> DaemonConfiguration {
        let loaded: DaemonConfiguration
        let book: SIMPINBook
        do {
            loaded = try DaemonConfiguration.load(
                explicitPath: configurationFile,
                environment: environment,
                overrides: overrides
            ).configuration
            book = try loaded.simPINBook()
        } catch {
            logger.error("reload failed, the configuration in force stays: \(error)")
            return applied
        }
        gateway.updateSIMPINs(book)
        var changed: [String] = []
        if loaded.store != applied.store { changed.append("[store]") }
        if loaded.control != applied.control { changed.append("[control]") }
        if loaded.cloud != applied.cloud { changed.append("[cloud]") }
        if loaded.modem != applied.modem { changed.append("[modem]") }
        if loaded.discovery != applied.discovery || loaded.ports != applied.ports {
            changed.append("[discovery]/[[ports]]")
        }
        if loaded.metrics != applied.metrics { changed.append("[metrics]") }
        if loaded.ingest != applied.ingest { changed.append("[ingest]") }
        let note =
            changed.isEmpty ? "" : "; \(changed.joined(separator: ", ")) changed and take effect at the next restart"
        logger.notice("configuration reloaded: \(book) in force\(note)")
        return loaded
    }
}
