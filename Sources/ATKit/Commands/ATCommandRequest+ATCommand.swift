extension ATCommandRequest: ATCommand {
    /// A raw request as a typed command whose response is the ``ATResponse`` itself.
    public var request: ATCommandRequest { self }

    public func parse(_ response: ATResponse) throws(ATResponseParseError) -> ATResponse { response }
}
