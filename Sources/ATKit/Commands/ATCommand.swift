/// A typed AT command: the command line to send, how long it may take, and how its
/// ``ATResponse`` turns into a Swift value.
///
/// Commands are grouped by the chapter of 3GPP TS 27.007 that defines them (`General/` §5,
/// `NetworkService/` §7, `MobileTerminationControl/` §8, `PacketDomain/` §10); vendor commands live
/// with their dialect. Each type's doc comment starts with the section it implements.
///
/// ```swift
/// let imsi = try await session.send(CIMI())                 // "460001234567890"
/// let status = try await session.send(CEREG.Read())         // RegistrationStatus
/// try await session.send(CFUN.Set(.full))                   // long timeout built in
/// ```
///
/// Parsing is pure: ``parse(_:)`` sees only the response, so every parser is tested against
/// transcripts without a session.
public protocol ATCommand: Sendable {
    /// What a successful response parses into (`Void` for set commands).
    associatedtype Response: Sendable

    /// The command line without terminator, e.g. `AT+CEREG?`.
    var command: String { get }

    /// How long the modem may take; nil uses the session's default. Only slow commands set it
    /// (see ``ATCommandTimeout``).
    var timeout: Duration? { get }

    /// Turns the information lines of a successful response into ``Response``.
    ///
    /// - Throws: ``ATResponseParseError`` when the lines do not have the documented shape.
    func parse(_ response: ATResponse) throws(ATResponseParseError) -> Response
}

extension ATCommand {
    public var timeout: Duration? { nil }

    /// The session request for this command.
    public var request: ATCommandRequest {
        ATCommandRequest(command, timeout: timeout)
    }
}

extension ATCommand where Response == Void {
    public func parse(_ response: ATResponse) throws(ATResponseParseError) {}
}
