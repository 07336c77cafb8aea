import ATKit
import Synchronization

/// The AT session a supervisor has open on its port, for operators' commands: they go through the
/// same ``ATSession`` queue as the supervisor's own, so the module sees whole commands, one at a
/// time (docs/control.md, "AT on a supervised modem").
final class LiveSessionSlot: Sendable {
    /// An open session and what goes with it.
    struct Live: Sendable {
        let session: ATSession
        let hub: ModemEventHub
        let dialect: ModemDialect
    }

    private let slot = Mutex<Live?>(nil)

    /// Set while the supervisor's session is open; cleared before it closes.
    var current: Live? {
        get { slot.withLock { $0 } }
        set { slot.withLock { $0 = newValue } }
    }
}
