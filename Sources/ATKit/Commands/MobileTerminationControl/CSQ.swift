/// 3GPP TS 27.007 §8.5 Signal quality `+CSQ`: `+CSQ: <rssi>,<ber>`.
///
/// On NB-IoT `<ber>` is usually 99; Hi21xx prints no space after the colon (`+CSQ:18,99`).
public struct CSQ: ATCommand {
    public init() {}

    public var command: String { "AT+CSQ" }

    public func parse(_ response: ATResponse) throws(ATResponseParseError) -> SignalQuality {
        let parameters = try response.parameters(for: "+CSQ")
        guard let rssi = parameters.int(0), let ber = parameters.int(1) else {
            throw ATResponseParseError(response, "expected +CSQ: <rssi>,<ber>")
        }
        return SignalQuality(rssi: rssi, ber: ber)
    }
}
