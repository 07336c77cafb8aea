/// 3GPP TS 27.007 §5.1 Request manufacturer identification `+CGMI`.
///
/// Answers with bare text (`Quectel`, `SIMCOM_Ltd`, `u-blox`, `Nordic Semiconductor ASA`); some
/// firmware prefixes it with `+CGMI: `. The response is the first non-empty line.
public struct CGMI: ATCommand {
    public init() {}

    public var command: String { "AT+CGMI" }

    public func parse(_ response: ATResponse) throws(ATResponseParseError) -> String {
        try IdentificationText.first(response, prefix: "+CGMI")
    }
}
