/// 3GPP TS 27.007 §5.6 Request international mobile subscriber identity `+CIMI`.
///
/// Bare digits (up to 15). Without a SIM the modem answers `+CME ERROR: 10` (SIM not inserted),
/// `13` (SIM failure) or a plain `ERROR`, which the session reports as
/// ``ATError/commandFailed(command:port:final:lines:)``.
public struct CIMI: ATCommand {
    public init() {}

    public var command: String { "AT+CIMI" }

    /// The IMSI digits. Throws when the answer is not 6 to 15 digits, so that text which is not
    /// an IMSI (a boot banner line received while a rebooting module ate the command) is never
    /// taken for one.
    public func parse(_ response: ATResponse) throws(ATResponseParseError) -> String {
        let text = try IdentificationText.first(response, prefix: "+CIMI")
        guard (6...15).contains(text.count), text.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw ATResponseParseError(response, "expected 6 to 15 digits")
        }
        return text
    }
}
