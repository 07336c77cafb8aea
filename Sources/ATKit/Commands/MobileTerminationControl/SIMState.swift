/// The SIM state as `AT+CPIN?` reports it (3GPP TS 27.007 §8.3 `<code>`), or as the `+CME ERROR`
/// codes of §9.2.1 say when there is no usable SIM.
public enum SIMState: Sendable, Hashable, CustomStringConvertible {
    /// `READY`: no PIN pending.
    case ready
    /// A PIN or PUK is needed; the associated value is the 27.007 `<code>` (`SIM PIN`, `SIM PUK`,
    /// `PH-SIM PIN`, `SIM PIN2`, `PH-NET PIN`, ...).
    case locked(String)
    /// `+CME ERROR: 10` or SIMCom's `+CPIN: NOT INSERTED`.
    case notInserted
    /// `+CME ERROR: 13` (SIM failure) or `15` (SIM wrong).
    case failure
    /// `+CME ERROR: 14` or `+CPIN: NOT READY`: still initialising.
    case busy

    /// From a `+CPIN:` code.
    public init(code: String) {
        switch code.trimmingSpaces().uppercased() {
        case "READY": self = .ready
        case "NOT INSERTED": self = .notInserted
        case "NOT READY": self = .busy
        default: self = .locked(code.trimmingSpaces())
        }
    }

    /// From the failure of `AT+CPIN?` (or `AT+CIMI`); nil when the error says nothing about the SIM.
    public init?(error final: ATFinalResult) {
        guard case .cmeError(let code?, _) = final else { return nil }
        switch code {
        case 10: self = .notInserted
        case 13, 15: self = .failure
        case 14: self = .busy
        default: return nil
        }
    }

    /// A stable snake_case name for JSON: `ready`, `sim_pin`, `sim_puk`, `ph_sim_pin`, ...,
    /// `not_inserted`, `failure`, `busy`.
    public var name: String {
        switch self {
        case .ready: "ready"
        case .locked(let code):
            String(code.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "_" })
        case .notInserted: "not_inserted"
        case .failure: "failure"
        case .busy: "busy"
        }
    }

    public var description: String { name }
}
