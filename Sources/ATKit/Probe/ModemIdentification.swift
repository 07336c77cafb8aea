/// What ``ModemProbe`` knows the moment it has read a valid IMEI, before the SIM, registration,
/// signal and operator queries: enough for a caller to claim and record the module while the
/// rest is still being read. Handed to ``ModemProbeOptions/onIdentified``.
public struct ModemIdentification: Sendable, Hashable {
    /// What the probe does once ``ModemProbeOptions/onIdentified`` has returned.
    public enum Decision: Sendable, Hashable {
        /// Read the rest (SIM, registration, signal, operator) and report everything.
        case proceed
        /// Stop after the IMEI: the report has the identification and nothing read after it (the
        /// caller needs no more, e.g. the module is already supervised on another port).
        case stop
    }

    /// The port probed.
    public var port: String
    /// The speed the module answered at.
    public var baudRate: Int
    /// 15 digits, Luhn-checked.
    public var imei: String
    /// `+CGMI` (else from `ATI`); nil when neither answered.
    public var manufacturer: String?
    /// `+CGMM` (else from `ATI`); nil when neither answered.
    public var model: String?
    /// `+CGMR` (else the `ATI` revision).
    public var firmware: String?
    /// The ``ModemDialect/id`` the probe identified from manufacturer and model.
    public var dialect: String

    public init(
        port: String,
        baudRate: Int,
        imei: String,
        manufacturer: String? = nil,
        model: String? = nil,
        firmware: String? = nil,
        dialect: String
    ) {
        self.port = port
        self.baudRate = baudRate
        self.imei = imei
        self.manufacturer = manufacturer
        self.model = model
        self.firmware = firmware
        self.dialect = dialect
    }
}
