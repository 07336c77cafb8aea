import Foundation

/// One simulated port: a family plus the scenario it plays.
///
/// As a string (CLI `--port`, tests): `FAMILY[,key=value...]`, e.g. `bc95`,
/// `bg95,sim=missing`, `nrf9160,psm=on,registration=roaming`, `sim7080,fault=garbage,fault=reboot:3`.
///
/// | key | values |
/// |---|---|
/// | `sim` | `present` (default), `missing`, `pin` |
/// | `registration` | `home` (default), `roaming`, `denied` (reject cause 15), `denied:N`, `never` (searches forever) |
/// | `psm` | `off` (default), `on`: the network grants PSM (Active-Time 60 s, Periodic-TAU 24 h) |
/// | `baud` | a fixed speed overriding the family's |
/// | `fault` | see ``SimulatedFault``; repeatable |
public struct SimulatedPortConfiguration: Sendable {
    public enum SIM: String, Sendable, Hashable {
        case present, missing, pin
    }

    public enum Registration: Sendable, Hashable {
        case home
        case roaming
        case denied(cause: Int)
        case never
    }

    public var family: SimulatedFamily
    public var sim: SIM
    public var registration: Registration
    public var powerSaving: Bool
    public var faults: [SimulatedFault]

    public init(
        family: SimulatedFamily,
        sim: SIM = .present,
        registration: Registration = .home,
        powerSaving: Bool = false,
        faults: [SimulatedFault] = []
    ) {
        self.family = family
        self.sim = sim
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
                    throw SimulatorConfigurationError("sim=\(value): use present, missing or pin")
                }
                self.sim = sim
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
                    "unknown option \(key.debugDescription) in \(spec.debugDescription); use sim, registration, psm, baud or fault"
                )
            }
        }
    }
}
