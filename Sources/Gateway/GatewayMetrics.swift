import Metrics
import Synchronization

/// The gateway's metrics through the swift-metrics API (the daemon bootstraps the backend,
/// Prometheus, before creating the ``Gateway``), mirrored in ``GatewayCounters`` for readers
/// without a backend.
///
/// | metric | type | labels |
/// |---|---|---|
/// | `nbgw_modems` | gauge | `state` (every ``ModemState``) |
/// | `nbgw_registrations_total` | counter | `result` = `created`, `existing`, `failed` |
/// | `nbgw_at_commands_total` | counter | — |
/// | `nbgw_at_errors_total` | counter | — |
/// | `nbgw_at_timeouts_total` | counter | — |
final class GatewayMetrics: Sendable {
    /// The outcome label of `nbgw_registrations_total`.
    enum RegistrationResult: String, CaseIterable {
        case created, existing, failed
    }

    private let modems: [ModemState: Gauge]
    private let registrations: [RegistrationResult: Counter]
    private let commands = Counter(label: "nbgw_at_commands_total")
    private let errors = Counter(label: "nbgw_at_errors_total")
    private let timeouts = Counter(label: "nbgw_at_timeouts_total")
    private let totals = Mutex(GatewayCounters())

    init() {
        var modems: [ModemState: Gauge] = [:]
        for state in ModemState.allCases {
            modems[state] = Gauge(label: "nbgw_modems", dimensions: [("state", state.rawValue)])
        }
        self.modems = modems
        var registrations: [RegistrationResult: Counter] = [:]
        for result in RegistrationResult.allCases {
            registrations[result] = Counter(
                label: "nbgw_registrations_total",
                dimensions: [("result", result.rawValue)]
            )
        }
        self.registrations = registrations
    }

    /// Sets the gauge of every state (states missing from `counts` are 0).
    func record(_ counts: [ModemState: Int]) {
        for state in ModemState.allCases {
            modems[state]?.record(counts[state] ?? 0)
        }
    }

    func countRegistration(_ result: RegistrationResult) {
        registrations[result]?.increment()
        totals.withLock { totals in
            switch result {
            case .created: totals.registrationsCreated += 1
            case .existing: totals.registrationsExisting += 1
            case .failed: totals.registrationsFailed += 1
            }
        }
    }

    func countCommand() {
        commands.increment()
        totals.withLock { $0.atCommands += 1 }
    }

    func countErrors(_ count: Int) {
        errors.increment(by: count)
        totals.withLock { $0.atErrors += count }
    }

    func countTimeout() {
        timeouts.increment()
        totals.withLock { $0.atTimeouts += 1 }
    }

    var counters: GatewayCounters { totals.withLock { $0 } }
}
