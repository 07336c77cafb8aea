/// Reads the SIM's ICCID with a vendor command; 3GPP TS 27.007 has none (§8.18 `+CRSM` can read
/// EF-ICCID, but not without a SIM access dance).
///
/// Shapes (`docs/at-dialects.md` §5): `+NCCID:<iccid>` (BC95), `+QCCID: <iccid>` (Quectel),
/// bare digits after `AT+CCID` (SIMCom) or `+CCID: <iccid>` (u-blox), `%XICCID: <iccid>` (nRF91).
public struct ICCIDQuery: ATCommand, Hashable {
    public var command: String
    /// The information-line name, or nil when the answer is bare text.
    public var prefix: String?

    public init(_ command: String, prefix: String?) {
        self.command = command
        self.prefix = prefix
    }

    public func parse(_ response: ATResponse) throws(ATResponseParseError) -> String {
        let candidates =
            prefix.map { name in response.values(for: name) + response.bareLines.filter { !$0.hasPrefix(name) } }
            ?? response.bareLines
        for candidate in candidates {
            if let iccid = Self.normalise(candidate) { return iccid }
        }
        throw ATResponseParseError(response, "expected an ICCID: 18 to 20 hex digits starting with 89")
    }

    /// ICCID normalisation as ModemManager does it: quotes and a trailing padding `F` removed,
    /// 18–20 characters, hex letters allowed in the account part (Chinese ICCIDs), and a
    /// nibble-swapped raw EF-ICCID (`98...`) swapped back. Nil when the text is no ICCID.
    public static func normalise(_ text: String) -> String? {
        var value = text.trimmingSpaces()
        if value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 {
            value = String(value.dropFirst().dropLast())
        }
        value = value.uppercased()
        guard value.allSatisfy(\.isHexDigit) else { return nil }
        if value.hasPrefix("98"), value.count % 2 == 0 {
            var swapped = ""
            var characters = Array(value)
            while characters.count >= 2 {
                swapped.append(characters[1])
                swapped.append(characters[0])
                characters.removeFirst(2)
            }
            value = swapped
        }
        while value.hasSuffix("F") { value.removeLast() }
        guard (18...20).contains(value.count), value.hasPrefix("89") else { return nil }
        return value
    }
}
