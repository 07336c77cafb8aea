import Foundation

/// One simulated port: a family plus the scenario it plays.
///
/// As a string (CLI `--port`, tests): `FAMILY[,key=value...]`, e.g. `bc95`,
/// `bg95,sim=missing`, `nrf9160,psm=on,registration=roaming`, `sim7080,fault=garbage,fault=reboot:3`.
///
/// | key | values |
/// |---|---|
/// | `sim` | `present` (default), `missing`, `pin` (locked; `AT+CPIN="<pin>"` opens it), `puk` (blocked), `failure` (`+CME ERROR: 13`), `busy` (`+CME ERROR: 14` for a second after boot) |
/// | `pin` | the SIM's PIN (default `1234`); three wrong ones block it behind the PUK `12345678` |
/// | `pin-attempts` | PIN attempts left at power-on (1 to 3, default 3) |
/// | `registration` | `home` (default), `roaming`, `denied` (reject cause 15), `denied:N`, `never` (searches forever) |
/// | `psm` | `off` (default), `on`: the network grants PSM (Active-Time 60 s, Periodic-TAU 24 h) |
/// | `baud` | a fixed speed overriding the family's |
/// | `fault` | see ``SimulatedFault``; repeatable |
public struct SimulatedPortConfiguration: Sendable {
    public enum SIM: String, Sendable, Hashable {
        case present, missing, pin, puk, failure, busy
    }

    /// The PUK of every simulated SIM.
    public static let puk = "12345678"

    public enum Registration: Sendable, Hashable {
        case home
        case roaming
        case denied(cause: Int)
        case never
    }

    public var family: SimulatedFamily
    public var sim: SIM
    /// The SIM's PIN (``SIM/pin``).
    public var pin: String
    /// PIN attempts left at power-on.
    public var pinAttempts = 3
    public var registration: Registration
    public var powerSaving: Bool
    public var faults: [SimulatedFault]

    public init(
        family: SimulatedFamily,
        sim: SIM = .present,
        pin: String = "1234",
        registration: Registration = .home,
        powerSaving: Bool = false,
        faults: [SimulatedFault] = []
    ) {
        self.family = family
        self.sim = sim
        self.pin = pin
        self.registration = registration
        self.powerSaving = powerSaving
        self.faults = faults
    }

    /// Parses `FAMILY[,key=value...]`.
    public init(spec: String) throws(SimulatorConfigurationError) {
        let parts = spec.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let name = parts.first, var family = SimulatedFamily.named(name) else {
            let known = SimulatedFamily.all.map(\.id).joined(separator: ", ")
            throw SimulatorConfigurationError("unknown family in \(spec.debugDescription); known: \(known)")
        }
        self.init(family: family)
        defer { self.family = family }
        for option in parts.dropFirst() {
            let pair = option.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else {
                throw SimulatorConfigurationError(
                    "option \(option.debugDescription) in \(spec.debugDescription) is not key=value"
                )
            }
            let (key, value) = (pair[0].lowercased(), pair[1])
            switch key {
            case "sim":
                guard let sim = SIM(rawValue: value.lowercased()) else {
                    throw SimulatorConfigurationError("sim=\(value): use present, missing, pin, puk, failure or busy")
                }
                self.sim = sim
            case "pin":
                guard (4...8).contains(value.count), value.allSatisfy(\.isNumber) else {
                    throw SimulatorConfigurationError("pin=\(value): a PIN is 4 to 8 digits")
                }
                pin = value
            case "pin-attempts":
                guard let attempts = Int(value), (1...3).contains(attempts) else {
                    throw SimulatorConfigurationError("pin-attempts=\(value): use 1, 2 or 3")
                }
                pinAttempts = attempts
            case "registration", "reg":
                switch value.lowercased() {
                case "home": registration = .home
                case "roaming": registration = .roaming
                case "never", "searching": registration = .never
                case "denied": registration = .denied(cause: 15)
                case let text where text.hasPrefix("denied:"):
                    guard let cause = Int(text.dropFirst("denied:".count)) else {
                        throw SimulatorConfigurationError("registration=\(value): denied:N needs a number")
                    }
                    registration = .denied(cause: cause)
                default:
                    throw SimulatorConfigurationError("registration=\(value): use home, roaming, denied[:N] or never")
                }
            case "psm":
                powerSaving = ["on", "true", "1", "yes"].contains(value.lowercased())
            case "baud":
                guard let baud = Int(value), baud > 0 else {
                    throw SimulatorConfigurationError("baud=\(value) is not a speed")
                }
                family.baud = .fixed(baud)
                family.nominalBaud = baud
            case "fault":
                faults.append(try SimulatedFault(spec: value))
            default:
                throw SimulatorConfigurationError(
                    "unknown option \(key.debugDescription) in \(spec.debugDescription); use sim, pin, pin-attempts, registration, psm, baud or fault"
                )
            }
        }
    }
}
