/// How one module family speaks AT: data, plus a few small hooks where data is not enough.
///
/// A dialect is a value, not a subclass. ``ts27007`` is the 3GPP baseline; each vendor file
/// (`ModemDialect+QuectelBC95.swift`, ...) builds its dialect from it and changes what differs:
/// which command reads the IMEI and ICCID, the URCs it adds, the UART speed, the boot banner that
/// gives a reboot away, what `<AcT>` 8 means, how RAT, bands and APN are set. Adding a vendor is
/// one file here, one transcript under `docs/at-logs/`, one test, and a line in ``catalogue``.
public struct ModemDialect: Sendable, Identifiable, CustomStringConvertible {
    /// How to recognise the family from `AT+CGMI` / `AT+CGMM` (`docs/at-dialects.md` §9).
    public struct Identification: Sendable, Hashable {
        /// Case-insensitive substrings of the manufacturer (`Quectel` matches `Quectel_Ltd`).
        public var manufacturers: [String]
        /// Case-insensitive substrings of the model (`BC66` matches `Quectel_BC66`).
        public var models: [String]

        public init(manufacturers: [String], models: [String]) {
            self.manufacturers = manufacturers
            self.models = models
        }

        /// Whether the answers match. The model must match; the manufacturer must too when known.
        public func matches(manufacturer: String?, model: String?) -> Bool {
            guard let model, models.contains(where: { model.containsIgnoringASCIICase($0) }) else {
                return false
            }
            guard let manufacturer else { return true }
            return manufacturers.contains { manufacturer.containsIgnoringASCIICase($0) }
        }
    }

    /// Stable identifier, used in JSON (`quectel-bc95`).
    public var id: String
    /// Human name (`Quectel BC95 / BC95-G (Hi2115)`).
    public var name: String
    public var identification: Identification?

    /// The UART speed the family ships with (USB ports ignore it).
    public var baudRate: Int
    /// Pause between a final result and the next command (``ATSessionConfiguration/guardTime``).
    public var guardTime: Duration
    /// URC patterns the family adds to ``ATURCTable/ts27007Baseline``.
    public var urcPatterns: [ATURCPattern]
    /// The URCs that mean "the module has just (re)booted": the first line of its boot banner.
    /// They are added to the URC table too.
    public var bootMarkers: [ATURCPattern]

    /// Which `+CGSN` form answers the IMEI.
    public var imeiQuery: CGSN.Form
    /// Commands that read the ICCID, tried in order (there is no 27.007 command for it).
    public var iccidQueries: [ICCIDQuery]

    /// `<AcT>` values whose meaning differs from 27.007 §7.3 for this family (see
    /// ``technology(forAccessTechnology:)``).
    public var accessTechnologyOverrides: [Int: RadioTechnology]
    /// The radio technologies the family can use.
    public var technologies: Set<RadioTechnology>

    /// The PDP context id of the default (attach) bearer.
    public var defaultContextID: Int
    /// Commands that switch on the family's PSM notifications (`AT+NPSMR=1`, ...).
    public var powerSavingReports: [ATCommandRequest]
    /// The command that reboots the module; nil when only the host can reset it (nRF91).
    public var rebootCommand: ATCommandRequest?

    /// Hook: the commands that restrict the module to `technologies` (in preference order); nil
    /// when the family cannot do that combination.
    public var radioAccessCommands: @Sendable (_ technologies: [RadioTechnology]) -> [ATCommandRequest]?
    /// Hook: the commands that restrict `technology` to `bands` (E-UTRA band numbers); nil when the
    /// family cannot.
    public var bandCommands: @Sendable (_ bands: [Int], _ technology: RadioTechnology) -> [ATCommandRequest]?
    /// Hook: the commands that set the APN of the default bearer. 27.007 `+CGDCONT` by default;
    /// BC66/BC660K use `+QCGDEFCONT`.
    public var apnCommands: @Sendable (_ context: PDPContext) throws(ATCommandArgumentError) -> [ATCommandRequest]
    /// Hook: what a URC says about power saving, if anything.
    public var powerSavingTransition: @Sendable (_ urc: ATURC) -> PowerSavingTransition?

    /// The baseline values for everything; vendor dialects start from ``ts27007``.
    public init(id: String, name: String) {
        self.id = id
        self.name = name
        identification = nil
        baudRate = 115_200
        // ubxlib, ublox-cellular-rs and atat all wait 20 ms between commands (see
        // ATSessionConfiguration.guardTime for why any pause is needed).
        guardTime = .milliseconds(20)
        urcPatterns = []
        bootMarkers = []
        imeiQuery = .bare
        iccidQueries = [ICCIDQuery("AT+CCID", prefix: "+CCID"), ICCIDQuery("AT+ICCID", prefix: "+ICCID")]
        accessTechnologyOverrides = [:]
        technologies = [.gsm, .umts, .lte, .nr]
        defaultContextID = 1
        powerSavingReports = []
        rebootCommand = nil
        radioAccessCommands = { _ in nil }
        bandCommands = { _, _ in nil }
        apnCommands = { context throws(ATCommandArgumentError) in [try CGDCONT.Set(context).request] }
        powerSavingTransition = { _ in nil }
    }

    /// The technology `<AcT>` stands for on this family: the override if any, else 27.007 §7.3.
    public func technology(forAccessTechnology act: Int) -> RadioTechnology? {
        accessTechnologyOverrides[act] ?? RadioTechnology.ts27007(accessTechnology: act)
    }

    /// The URC table for a session with this module.
    public var urcTable: ATURCTable {
        ATURCTable.ts27007Baseline.adding(urcPatterns + bootMarkers)
    }

    /// A session configuration with this dialect's URC table and guard time.
    public func sessionConfiguration(
        defaultTimeout: Duration = .seconds(10),
        diagnostics: (@Sendable (ATSessionDiagnostic) -> Void)? = nil
    ) -> ATSessionConfiguration {
        ATSessionConfiguration(
            defaultTimeout: defaultTimeout,
            guardTime: guardTime,
            urcTable: urcTable,
            diagnostics: diagnostics
        )
    }

    /// Whether `urc` is one of this family's boot markers.
    public func isBootMarker(_ urc: ATURC) -> Bool {
        bootMarkers.contains { $0.key == urc.name || $0.matches(urc.line) }
    }

    public var description: String { "\(name) (\(id))" }
}
