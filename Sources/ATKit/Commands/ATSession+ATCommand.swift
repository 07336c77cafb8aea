extension ATSession {
    /// Sends a typed command and parses its response.
    ///
    /// - Throws: everything ``send(_:)-(ATCommandRequest)`` throws, and ``ATResponseParseError``
    ///   (naming this port) when the modem answered `OK` with lines of the wrong shape.
    public func send<Command: ATCommand>(_ command: Command) async throws -> Command.Response {
        let response = try await send(command.request)
        do {
            return try command.parse(response)
        } catch {
            var located = error
            located.port = portName
            throw located
        }
    }
}
