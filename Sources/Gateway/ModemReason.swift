/// Why a module is in its state now: a stable code and a message naming the module and what to do.
public struct ModemReason: Sendable, Hashable, Codable, CustomStringConvertible {
    /// A ``ModemReasonCode`` raw value, or a ``ModemFailureCode`` raw value for a `failed` module.
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public init(_ code: ModemReasonCode, _ message: String) {
        self.init(code: code.rawValue, message: message)
    }

    /// The reason of a failure (a `failed` or `not_modem` module).
    public init(_ failure: ModemFailure) {
        self.init(code: failure.code.rawValue, message: failure.message)
    }

    /// The advice for ``code``, whichever kind it is.
    public var advice: String? {
        ModemReasonCode(rawValue: code)?.advice ?? ModemFailureCode(rawValue: code)?.advice
    }

    public var description: String { "\(code): \(message)" }
}
