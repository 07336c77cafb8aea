/// The eDRX cycle and paging time window of 3GPP TS 24.008 §10.5.5.32 (Table 10.5.5.32), as
/// `+CEDRXS` (27.007 §7.40) and `+CEDRXP` write them: 4-character bit strings.
///
/// The cycle is a multiple of 10.24 s (5.12 s for LTE-M `0000`); NB-IoT (NB-S1 mode) only defines
/// some codes and reads the others as `0010` (20.48 s). The paging time window is (n + 1) × 1.28 s
/// on LTE-M and (n + 1) × 2.56 s on NB-IoT.
///
/// ```
/// LTE-M  "0101" = 81.92 s    "0010" = 20.48 s     PTW "1011" = 15.36 s
/// NB-IoT "1101" = 2621.44 s                       PTW "0111" = 20.48 s
/// ```
public enum EDRXCycle {
    /// The 27.007 `<AcT-type>` of `+CEDRXS`.
    public enum AccessTechnology: Int, Sendable, Hashable {
        /// 4: E-UTRAN WB-S1 mode (LTE, LTE-M).
        case lteM = 4
        /// 5: E-UTRAN NB-S1 mode (NB-IoT).
        case nbIoT = 5

        /// The `<AcT-type>` for a radio technology; nil for technologies without eDRX here.
        public init?(_ technology: RadioTechnology) {
            switch technology {
            case .lte, .lteM: self = .lteM
            case .nbIoT: self = .nbIoT
            default: return nil
            }
        }
    }

    /// Multiples of 10.24 s per code (0 = 5.12 s), as Nordic's lte_lc tables them.
    private static let lteMMultipliers = [0, 1, 2, 4, 6, 8, 10, 12, 14, 16, 32, 64, 128, 256, 256, 256]
    private static let nbIoTMultipliers = [2, 2, 2, 4, 2, 8, 2, 2, 2, 16, 32, 64, 128, 256, 512, 1024]

    /// The cycle length in seconds for a 4-bit code; nil when `bits` is not 4 binary digits.
    public static func seconds(fromBits bits: String, technology: AccessTechnology) -> Double? {
        guard let code = code(bits) else { return nil }
        let multiplier = (technology == .lteM ? lteMMultipliers : nbIoTMultipliers)[code]
        return multiplier == 0 ? 5.12 : Double(multiplier) * 10.24
    }

    /// The shortest cycle that is at least `seconds` (or the longest one), with its length.
    public static func bits(forSeconds seconds: Double, technology: AccessTechnology) -> (bits: String, seconds: Double)
    {
        let candidates = (0..<16).compactMap { code -> (Int, Double)? in
            let bits = render(code)
            guard let length = Self.seconds(fromBits: bits, technology: technology) else { return nil }
            // NB-IoT reads undefined codes as 0010; never choose those.
            if technology == .nbIoT, ![2, 3, 5, 9, 10, 11, 12, 13, 14, 15].contains(code) { return nil }
            return (code, length)
        }
        .sorted { $0.1 < $1.1 }
        let chosen = candidates.first { $0.1 >= seconds - 0.001 } ?? candidates.last!
        return (render(chosen.0), chosen.1)
    }

    /// The paging time window in seconds for a 4-bit code.
    public static func pagingWindowSeconds(fromBits bits: String, technology: AccessTechnology) -> Double? {
        guard let code = code(bits) else { return nil }
        return Double(code + 1) * (technology == .lteM ? 1.28 : 2.56)
    }

    /// The shortest paging time window that is at least `seconds` (or the longest one).
    public static func pagingWindowBits(
        forSeconds seconds: Double,
        technology: AccessTechnology
    ) -> (bits: String, seconds: Double) {
        let step = technology == .lteM ? 1.28 : 2.56
        let code = min(15, max(0, Int((seconds / step - 0.001).rounded(.up)) - 1))
        return (render(code), Double(code + 1) * step)
    }

    private static func code(_ bits: String) -> Int? {
        guard bits.count == 4, bits.allSatisfy({ $0 == "0" || $0 == "1" }) else { return nil }
        return Int(bits, radix: 2)
    }

    private static func render(_ code: Int) -> String {
        let text = String(code, radix: 2)
        return String(repeating: "0", count: 4 - text.count) + text
    }
}
