/// What a probe learnt about a module. Encodes to exactly the JSON of `nbgw modem probe --json`
/// (`docs/cli.md`, "Modems"):
///
/// ```json
/// {"imei":"866971030221959","imsi":"460001234567890","iccid":"89860012345678901234",
///  "manufacturer":"Quectel","model":"BC95HB-02-STD_850","firmware":"V100R100C10B657SP2",
///  "dialect":"quectel-bc95","baud":9600,"sim":"ready",
///  "registration":{"stat":1,"state":"registered_home","tac":"0A0B","ci":"01020304","act":9,
///                  "technology":"nb-iot","reject_cause":null,
///                  "psm":{"active_time_s":60,"periodic_tau_s":86400}},
///  "signal":{"rssi_dbm":-77,"rsrp_dbm":-95,"rsrq_db":-11.5},"operator":"46000"}
/// ```
///
/// Every key is always present; unknown values are `null`, never guessed.
public struct ModemProbeReport: Sendable, Hashable, Codable {
    /// Registration as `+CEREG` (or `+CREG`) reported it.
    public struct Registration: Sendable, Hashable, Codable {
        /// The granted PSM timers in seconds (null: not granted, deactivated, or not reported).
        public struct PSM: Sendable, Hashable, Codable {
            public var activeTimeSeconds: Int?
            public var periodicTAUSeconds: Int?

            public init(activeTimeSeconds: Int? = nil, periodicTAUSeconds: Int? = nil) {
                self.activeTimeSeconds = activeTimeSeconds
                self.periodicTAUSeconds = periodicTAUSeconds
            }

            enum CodingKeys: String, CodingKey {
                case activeTimeSeconds = "active_time_s"
                case periodicTAUSeconds = "periodic_tau_s"
            }

            public func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(activeTimeSeconds, forKey: .activeTimeSeconds)
                try container.encode(periodicTAUSeconds, forKey: .periodicTAUSeconds)
            }
        }

        public var stat: Int?
        /// ``RegistrationState/name``.
        public var state: String?
        public var tac: String?
        public var ci: String?
        public var act: Int?
        /// ``RadioTechnology`` as the dialect reads `act`.
        public var technology: String?
        public var rejectCause: Int?
        public var psm: PSM

        public init(
            stat: Int? = nil,
            state: String? = nil,
            tac: String? = nil,
            ci: String? = nil,
            act: Int? = nil,
            technology: String? = nil,
            rejectCause: Int? = nil,
            psm: PSM = PSM()
        ) {
            self.stat = stat
            self.state = state
            self.tac = tac
            self.ci = ci
            self.act = act
            self.technology = technology
            self.rejectCause = rejectCause
            self.psm = psm
        }

        enum CodingKeys: String, CodingKey {
            case stat, state, tac, ci, act, technology, psm
            case rejectCause = "reject_cause"
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(stat, forKey: .stat)
            try container.encode(state, forKey: .state)
            try container.encode(tac, forKey: .tac)
            try container.encode(ci, forKey: .ci)
            try container.encode(act, forKey: .act)
            try container.encode(technology, forKey: .technology)
            try container.encode(rejectCause, forKey: .rejectCause)
            try container.encode(psm, forKey: .psm)
        }
    }

    /// Signal levels converted from `+CSQ` and `+CESQ`.
    public struct Signal: Sendable, Hashable, Codable {
        public var rssiDBm: Int?
        public var rsrpDBm: Int?
        public var rsrqDB: Double?

        public init(rssiDBm: Int? = nil, rsrpDBm: Int? = nil, rsrqDB: Double? = nil) {
            self.rssiDBm = rssiDBm
            self.rsrpDBm = rsrpDBm
            self.rsrqDB = rsrqDB
        }

        enum CodingKeys: String, CodingKey {
            case rssiDBm = "rssi_dbm"
            case rsrpDBm = "rsrp_dbm"
            case rsrqDB = "rsrq_db"
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(rssiDBm, forKey: .rssiDBm)
            try container.encode(rsrpDBm, forKey: .rsrpDBm)
            try container.encode(rsrqDB, forKey: .rsrqDB)
        }
    }

    /// 15 digits, Luhn-checked; null when unreadable or invalid.
    public var imei: String?
    public var imsi: String?
    /// Normalised (``ICCIDQuery/normalise(_:)``).
    public var iccid: String?
    public var manufacturer: String?
    public var model: String?
    public var firmware: String?
    /// ``ModemDialect/id``.
    public var dialect: String
    /// The speed the module answered at.
    public var baud: Int
    /// ``SIMState/name``.
    public var sim: String?
    public var registration: Registration
    public var signal: Signal
    /// The numeric PLMN (`MCCMNC`) from `+COPS`, or the name when the module only gives a name.
    public var `operator`: String?

    // Not part of the JSON (its keys are fixed by issue 3); shown by the text output.

    /// The port probed.
    public var port: String = ""
    /// `+CFUN` level.
    public var functionality: Int?
    /// Things worth telling the operator: fields left null and why, a reboot during the probe.
    public var notes: [String] = []

    public init(
        imei: String? = nil,
        imsi: String? = nil,
        iccid: String? = nil,
        manufacturer: String? = nil,
        model: String? = nil,
        firmware: String? = nil,
        dialect: String,
        baud: Int,
        sim: String? = nil,
        registration: Registration = Registration(),
        signal: Signal = Signal(),
        operator: String? = nil
    ) {
        self.imei = imei
        self.imsi = imsi
        self.iccid = iccid
        self.manufacturer = manufacturer
        self.model = model
        self.firmware = firmware
        self.dialect = dialect
        self.baud = baud
        self.sim = sim
        self.registration = registration
        self.signal = signal
        self.operator = `operator`
    }

    enum CodingKeys: String, CodingKey {
        case imei, imsi, iccid, manufacturer, model, firmware, dialect, baud, sim, registration, signal
        case `operator` = "operator"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            imei: try container.decodeIfPresent(String.self, forKey: .imei),
            imsi: try container.decodeIfPresent(String.self, forKey: .imsi),
            iccid: try container.decodeIfPresent(String.self, forKey: .iccid),
            manufacturer: try container.decodeIfPresent(String.self, forKey: .manufacturer),
            model: try container.decodeIfPresent(String.self, forKey: .model),
            firmware: try container.decodeIfPresent(String.self, forKey: .firmware),
            dialect: try container.decode(String.self, forKey: .dialect),
            baud: try container.decode(Int.self, forKey: .baud),
            sim: try container.decodeIfPresent(String.self, forKey: .sim),
            registration: try container.decode(Registration.self, forKey: .registration),
            signal: try container.decode(Signal.self, forKey: .signal),
            operator: try container.decodeIfPresent(String.self, forKey: .operator)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(imei, forKey: .imei)
        try container.encode(imsi, forKey: .imsi)
        try container.encode(iccid, forKey: .iccid)
        try container.encode(manufacturer, forKey: .manufacturer)
        try container.encode(model, forKey: .model)
        try container.encode(firmware, forKey: .firmware)
        try container.encode(dialect, forKey: .dialect)
        try container.encode(baud, forKey: .baud)
        try container.encode(sim, forKey: .sim)
        try container.encode(registration, forKey: .registration)
        try container.encode(signal, forKey: .signal)
        try container.encode(`operator`, forKey: .operator)
    }
}
