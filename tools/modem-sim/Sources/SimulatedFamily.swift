/// A module family as the simulator plays it: identity, line conventions, speed rules, boot
/// banner, radio parameters and scripted latencies. The catalogue (``SimulatedFamily/all``)
/// reconstructs each family from `docs/at-dialects.md`; every value a test checks (IMEI, ICCID,
/// TAC, signal) is fixed here, so expected reports can be derived from the family alone.
public struct SimulatedFamily: Sendable {
    /// How the module's UART treats the line speed the host chose.
    public enum BaudPolicy: Sendable, Hashable {
        /// Only this speed works; at any other the module sees (and sends) framing garbage.
        case fixed(Int)
        /// Auto-bauding: any speed, but the first `AT` after boot or a speed change only trains
        /// the UART and gets no answer (SIM70x0, BC66).
        case autoBaud
        /// Speed ignored (USB CDC and vendor-class ports).
        case any
    }

    /// What the port is.
    public enum Kind: Sendable, Hashable {
        /// An AT modem port.
        case modem
        /// A port that never says anything (a QCDM diagnostic port).
        case silent
        /// A GNSS port streaming NMEA sentences and ignoring input.
        case nmea
    }

    /// Scripted answer times: how long after the command's CR the answer starts.
    public struct Latency: Sendable {
        /// Ordinary commands.
        public var base: Duration
        /// Longer answers for command prefixes (`AT+CIMI` reads the SIM, `AT+CFUN=1` starts the
        /// radio), longest prefix first.
        public var overrides: [(prefix: String, latency: Duration)]

        public init(base: Duration, overrides: [(prefix: String, latency: Duration)] = []) {
            self.base = base
            self.overrides = overrides.sorted { $0.prefix.count > $1.prefix.count }
        }

        /// The latency of `command` (upper-cased command line).
        public func latency(for command: String) -> Duration {
            overrides.first { command.hasPrefix($0.prefix) }?.latency ?? base
        }
    }

    public var id: String
    public var kind: Kind
    public var manufacturer: String
    public var model: String
    /// `AT+CGMR` lines.
    public var revisionLines: [String]
    /// `ATI` lines.
    public var identificationLines: [String]
    /// The first 14 IMEI digits; the port index is added to the last ones and the Luhn digit
    /// appended, so every simulated port has its own valid IMEI.
    public var imeiBase: String
    /// What bare `AT+CGSN` answers when it is not the IMEI (Hi21xx answers the serial number).
    public var serialNumber: String?
    /// Whether `AT+CGSN=1` quotes the IMEI (nRF91).
    public var quotesIMEI: Bool
    public var imsi: String
    /// As the command prints it (an nRF91 ICCID may end in the padding `F`).
    public var iccid: String
    /// The ICCID command, upper case (`AT+NCCID`) and the prefix of its answer (nil: bare digits).
    public var iccidCommand: String
    public var iccidPrefix: String?
    public var baud: BaudPolicy
    /// The speed to advertise (and to set the pty to before a host opens it).
    public var nominalBaud: Int
    /// `":"` (Hi21xx) or `": "`.
    public var colon: String
    /// Raw bytes before the banner (UART noise while the module resets).
    public var bootNoise: [UInt8]
    /// The boot banner; `{cause}` is replaced by the reboot cause.
    public var bootLines: [String]
    /// Line ending of the banner (MT2625 mask ROM uses LF-CR).
    public var bootLineEnding: String
    /// Lines printed after the banner once the application runs (`+CPIN: READY`, `SMS Ready`).
    public var readyLines: [String]
    /// Whether the banner ends with an `OK` that belongs to nothing (Hi21xx).
    public var bootEndsWithOK: Bool
    /// From reset to the end of the banner.
    public var bootDuration: Duration
    /// `+CFUN` after boot (nRF91 starts with the radio off).
    public var initialFunctionality: Int
    /// `<AcT>` while registered.
    public var accessTechnology: Int
    public var trackingAreaCode: String
    public var cellID: String
    public var operatorNumeric: String
    public var operatorName: String
    /// `+CSQ` while registered.
    public var csq: (rssi: Int, ber: Int)
    /// `+CESQ` `<rsrq>` and `<rsrp>` while registered; nil when the module lacks `+CESQ`.
    public var cesq: (rsrq: Int, rsrp: Int)?
    /// Prefixes of vendor commands answered with a plain `OK`.
    public var vendorCommands: [String]
    /// Commands that reboot the module after their `OK` (upper case, exact).
    public var rebootCommands: [String]
    /// The command that reboots *before* answering (Hi21xx `AT+NRB`: `REBOOTING`, banner, `OK`).
    public var rebootWithBanner: String?
    /// The command that turns on the PSM URCs, and the URCs.
    public var powerSavingReportCommand: String?
    public var powerSavingEnterURC: String?
    public var powerSavingExitURC: String?
    /// Whether a command received in PSM is lost while the UART wakes up (BC95).
    public var sleepsInPowerSaving: Bool
    /// The URC the `urc-in-response` fault slips into answers.
    public var interleavedURC: String
    /// Time from `AT+CFUN=1` (or boot) to searching, and to the registration verdict.
    public var searchDelay: Duration
    public var registrationDelay: Duration
    public var latency: Latency

    /// The family's IMEI for port `index`: the base with `index` added, plus the Luhn digit.
    public func imei(port index: Int) -> String {
        let base = Int(imeiBase)! + index
        var digits = String(base)
        digits = String(repeating: "0", count: max(0, 14 - digits.count)) + digits
        return digits + String(Self.luhnCheckDigit(digits))
    }

    /// The Luhn check digit of a digit string.
    public static func luhnCheckDigit(_ digits: String) -> Int {
        var sum = 0
        for (offset, character) in digits.reversed().enumerated() {
            let digit = Int(String(character))!
            if offset % 2 == 0 {
                let doubled = digit * 2
                sum += doubled > 9 ? doubled - 9 : doubled
            } else {
                sum += digit
            }
        }
        return (10 - sum % 10) % 10
    }
}
