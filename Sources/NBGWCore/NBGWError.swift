/// A failure an operator can act on: a stable ``ErrorCode`` and a message that says what went
/// wrong, where (row, port, IMEI, device) and what to do next.
public struct NBGWError: Error, Equatable, Sendable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String

    public init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
