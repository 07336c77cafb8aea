/// 3GPP TS 27.007 §5.3 Request revision identification `+CGMR`.
///
/// Shapes seen (`docs/at-dialects.md` §5): one bare line (`BG95M3LAR02A03`,
/// `mfw_nrf9160_1.3.2`, `L0.0.00.00.05.06 [Feb 03 2018 13:00:41]`), a `Revision:` prefix
/// (SIMCom `Revision:1951B16SIM7080`, BC660K), or on Hi21xx (BC95, SARA-N2) one
/// `COMPONENT,version` line per firmware component, where the `APPLICATION` component is the
/// firmware that matters.
public struct CGMR: ATCommand {
    public init() {}

    public var command: String { "AT+CGMR" }

    public func parse(_ response: ATResponse) throws(ATResponseParseError) -> String {
        let lines = response.bareLines.filter(IdentificationText.isPrintableASCII).map { line -> String in
            var text = Substring(line)
            for prefix in ["+CGMR:", "Revision:", "REVISION:"] where text.hasPrefix(prefix) {
                text = text.dropFirst(prefix.count)
            }
            return text.trimmingSpaces()
        }
        .filter { !$0.isEmpty }
        guard !lines.isEmpty else { throw ATResponseParseError(response, "expected a revision line") }
        // Hi21xx: SECURITY,..., PROTOCOL,..., APPLICATION,... (Hi2115: APPLICATION_A,...).
        for line in lines {
            let parts = line.split(separator: ",", maxSplits: 1).map { $0.trimmingSpaces() }
            if parts.count == 2, parts[0] == "APPLICATION" || parts[0] == "APPLICATION_A" {
                return parts[1]
            }
        }
        return lines[0]
    }
}
