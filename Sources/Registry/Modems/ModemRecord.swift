import Foundation

/// One row of the modem table (migration `v5-modems`): a port the gateway supervises and, once
/// the probe has read it, the module's IMEI, with the supervisor's state and the module's last
/// known registration and signal. Absent values are nil (and omitted from JSON).
public struct ModemRecord: Sendable, Equatable, Codable {
    /// Network registration as `+CEREG` last reported it (3GPP TS 27.007 §10.1.22).
    public struct Registration: Sendable, Equatable, Codable {
        /// `<stat>`: 0 not registered, 1 home, 2 searching, 3 denied, 4 unknown, 5 roaming.
        public var stat: Int?
        /// `<tac>`, hex as reported.
        public var tac: String?
        /// `<ci>`, hex as reported.
        public var ci: String?
        /// `<AcT>` as reported (its meaning depends on the dialect: ``technology``).
        public var act: Int?
        /// `lte-m`, `nb-iot`, … as the dialect reads ``act``.
        public var technology: String?
        /// The numeric PLMN (`MCCMNC`) from `+COPS?`.
        public var `operator`: String?
        /// The EMM cause of a denial (3GPP TS 24.301 Annex A).
        public var rejectCause: Int?
        /// PSM timers the network granted, in seconds (T3324 Active-Time, T3412 extended).
        public var activeTimeSeconds: Int?
        public var periodicTAUSeconds: Int?
        /// When these facts were read.
        public var at: Date?

        public init(
            stat: Int? = nil,
            tac: String? = nil,
            ci: String? = nil,
            act: Int? = nil,
            technology: String? = nil,
            operator: String? = nil,
            rejectCause: Int? = nil,
            activeTimeSeconds: Int? = nil,
            periodicTAUSeconds: Int? = nil,
            at: Date? = nil
        ) {
            self.stat = stat
            self.tac = tac
            self.ci = ci
            self.act = act
            self.technology = technology
            self.operator = `operator`
            self.rejectCause = rejectCause
            self.activeTimeSeconds = activeTimeSeconds
            self.periodicTAUSeconds = periodicTAUSeconds
            self.at = at
        }

        enum CodingKeys: String, CodingKey {
            case stat, tac, ci, act, technology, rejectCause, at
            case `operator` = "operator"
            case activeTimeSeconds = "activeTimeS"
            case periodicTAUSeconds = "periodicTauS"
        }
    }

    /// Signal levels in dBm / dB (`+CSQ`: 3GPP TS 27.007 §8.5; `+CESQ`: §8.69).
    public struct Signal: Sendable, Equatable, Codable {
        public var rssiDBm: Int?
        public var rsrpDBm: Int?
        public var rsrqDB: Double?
        /// When these levels were read.
        public var at: Date?

        public init(rssiDBm: Int? = nil, rsrpDBm: Int? = nil, rsrqDB: Double? = nil, at: Date? = nil) {
            self.rssiDBm = rssiDBm
            self.rsrpDBm = rsrpDBm
            self.rsrqDB = rsrqDB
            self.at = at
        }

        /// The best single figure for a one-line listing: RSRP on LTE, else RSSI.
        public var summaryDBm: Int? { rsrpDBm ?? rssiDBm }

        enum CodingKeys: String, CodingKey {
            case rssiDBm = "rssiDbm"
            case rsrpDBm = "rsrpDbm"
            case rsrqDB = "rsrqDb"
            case at
        }
    }

    /// The last failure the supervisor recorded.
    public struct Failure: Sendable, Equatable, Codable {
        /// A stable code (`MODEM_ERROR`, `REGISTRATION_DENIED`, …; see `docs/gateway.md`).
        public var code: String
        /// What failed, where, and what to do.
        public var message: String
        public var at: Date

        public init(code: String, message: String, at: Date) {
            self.code = code
            self.message = message
            self.at = at
        }
    }

    /// Why the module is in its state now (`SIM_ABSENT`, `NO_SERVICE`, …; docs/gateway.md), with what
    /// to do. Unlike ``Failure``, it goes with the state: the next state without a reason clears it.
    public struct Reason: Sendable, Equatable, Codable {
        /// A stable code.
        public var code: String
        /// What is wrong, where, and what to do.
        public var message: String

        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    /// The device node, e.g. `/dev/ttyUSB2`.
    public var port: String
    /// 15 digits; nil until the probe has read it.
    public var imei: String?
    /// The supervisor's state, as text: `probing`, `configuring`, `searching`, `registering`,
    /// `ready`, `waiting`, `locked`, `failed`, `released`, `absent`, `not_modem`.
    public var state: String
    /// When the row entered ``state``.
    public var stateSince: Date
    /// Why the module is in ``state`` (nil when the state says it all, e.g. `ready`).
    public var reason: Reason?
    /// Groups the interfaces of one USB module (discovery's device key).
    public var deviceKey: String?
    /// Facts from discovery (VID:PID, interface, serial, links).
    public var attributes: [String: String]
    public var dialect: String?
    public var manufacturer: String?
    public var model: String?
    public var firmware: String?
    public var imsi: String?
    public var iccid: String?
    /// The speed the module answered at.
    public var baud: Int?
    public var registration: Registration
    public var signal: Signal
    public var lastError: Failure?
    /// Consecutive failed attempts since the module was last ready.
    public var attempts: Int
    /// When the supervisor retries, while ``state`` is `failed`.
    public var retryAt: Date?
    /// The cloud's device id (the `device` row of the same IMEI), once registered.
    public var deviceID: String?
    public var firstSeen: Date
    /// The last time the module answered.
    public var lastSeen: Date
    public var updatedAt: Date

    public init(
        port: String,
        imei: String? = nil,
        state: String,
        stateSince: Date,
        reason: Reason? = nil,
        deviceKey: String? = nil,
        attributes: [String: String] = [:],
        dialect: String? = nil,
        manufacturer: String? = nil,
        model: String? = nil,
        firmware: String? = nil,
        imsi: String? = nil,
        iccid: String? = nil,
        baud: Int? = nil,
        registration: Registration = Registration(),
        signal: Signal = Signal(),
        lastError: Failure? = nil,
        attempts: Int = 0,
        retryAt: Date? = nil,
        deviceID: String? = nil,
        firstSeen: Date,
        lastSeen: Date,
        updatedAt: Date
    ) {
        self.port = port
        self.imei = imei
        self.state = state
        self.stateSince = stateSince
        self.reason = reason
        self.deviceKey = deviceKey
        self.attributes = attributes
        self.dialect = dialect
        self.manufacturer = manufacturer
        self.model = model
        self.firmware = firmware
        self.imsi = imsi
        self.iccid = iccid
        self.baud = baud
        self.registration = registration
        self.signal = signal
        self.lastError = lastError
        self.attempts = attempts
        self.retryAt = retryAt
        self.deviceID = deviceID
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case port, imei, state, stateSince, reason, deviceKey, attributes, dialect, manufacturer, model, firmware, imsi,
            iccid
        case baud, registration, signal, lastError, attempts, retryAt, firstSeen, lastSeen, updatedAt
        case deviceID = "deviceId"
    }

    /// What a probe read about the module, for ``Registry/Modems-swift.struct/recordIdentity(port:_:state:)``.
    public struct Identity: Sendable, Equatable {
        /// 15 digits, Luhn-checked by the caller.
        public var imei: String
        public var dialect: String?
        public var manufacturer: String?
        public var model: String?
        public var firmware: String?
        public var imsi: String?
        public var iccid: String?
        public var baud: Int?
        public var registration: Registration
        public var signal: Signal

        public init(
            imei: String,
            dialect: String? = nil,
            manufacturer: String? = nil,
            model: String? = nil,
            firmware: String? = nil,
            imsi: String? = nil,
            iccid: String? = nil,
            baud: Int? = nil,
            registration: Registration = Registration(),
            signal: Signal = Signal()
        ) {
            self.imei = imei
            self.dialect = dialect
            self.manufacturer = manufacturer
            self.model = model
            self.firmware = firmware
            self.imsi = imsi
            self.iccid = iccid
            self.baud = baud
            self.registration = registration
            self.signal = signal
        }
    }

    /// A change to a present row, for ``Registry/Modems-swift.struct/update(port:_:)``: nil fields are left alone.
    public struct Change: Sendable, Equatable {
        /// The new state (``ModemRecord/stateSince`` moves only when it differs).
        public var state: String?
        /// Why: written (or cleared, when nil) with every change of ``state``; alone, it replaces the
        /// reason of the current state (a `NO_SERVICE` message with a newer signal).
        public var reason: Reason?
        public var registration: Registration?
        public var signal: Signal?
        /// Records a failure (`error_at` is now); the previous one is replaced.
        public var failure: (code: String, message: String)?
        /// Consecutive failed attempts.
        public var attempts: Int?
        /// When the supervisor retries; ``clearsRetry`` removes it.
        public var retryAt: Date?
        public var clearsRetry: Bool
        /// The cloud's device id of this row's IMEI.
        public var deviceID: String?
        /// The module answered: `last_seen` becomes now.
        public var seen: Bool

        public init(
            state: String? = nil,
            reason: Reason? = nil,
            registration: Registration? = nil,
            signal: Signal? = nil,
            failure: (code: String, message: String)? = nil,
            attempts: Int? = nil,
            retryAt: Date? = nil,
            clearsRetry: Bool = false,
            deviceID: String? = nil,
            seen: Bool = false
        ) {
            self.state = state
            self.reason = reason
            self.registration = registration
            self.signal = signal
            self.failure = failure
            self.attempts = attempts
            self.retryAt = retryAt
            self.clearsRetry = clearsRetry
            self.deviceID = deviceID
            self.seen = seen
        }

        public static func == (lhs: Change, rhs: Change) -> Bool {
            lhs.state == rhs.state && lhs.reason == rhs.reason && lhs.registration == rhs.registration
                && lhs.signal == rhs.signal
                && lhs.failure?.code == rhs.failure?.code && lhs.failure?.message == rhs.failure?.message
                && lhs.attempts == rhs.attempts && lhs.retryAt == rhs.retryAt && lhs.clearsRetry == rhs.clearsRetry
                && lhs.deviceID == rhs.deviceID && lhs.seen == rhs.seen
        }
    }
}
