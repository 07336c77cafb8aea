/// Why an identity string was rejected. Messages name the value and the rule it broke.
public enum IdentityError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidIMEI(String, reason: String)
    case invalidIMSI(String, reason: String)
    case invalidICCID(String, reason: String)
    case invalidDeviceID(String, reason: String)

    public var description: String {
        switch self {
        case .invalidIMEI(let value, let reason): "invalid IMEI \(value.debugDescription): \(reason)"
        case .invalidIMSI(let value, let reason): "invalid IMSI \(value.debugDescription): \(reason)"
        case .invalidICCID(let value, let reason): "invalid ICCID \(value.debugDescription): \(reason)"
        case .invalidDeviceID(let value, let reason): "invalid device id \(value.debugDescription): \(reason)"
        }
    }
}
