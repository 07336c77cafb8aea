/// The two PSM timers of 3GPP TS 24.008 §10.5.7.4a (GPRS Timer 3, T3412 extended, the
/// "Periodic-TAU") and §10.5.7.3 (GPRS Timer 2, T3324, the "Active-Time"), as 27.007 writes them in
/// `+CPSMS` (§7.38) and `+CEREG` (§10.1.22): 8-character bit strings, 3 unit bits then a 5-bit value.
///
/// ```
/// "00111000"  unit 001 (1 h)  × 24  = 86 400 s     Periodic-TAU
/// "00100001"  unit 001 (1 min) × 1  =     60 s     Active-Time
/// "11100000"  unit 111                = deactivated (nil)
/// ```
///
/// Bring-up code works in seconds and uses ``bits(forSeconds:)`` to encode; reports decode with
/// ``seconds(fromBits:)``.
public enum PSMTimer: Sendable, Hashable, CaseIterable {
    /// T3412 extended (Periodic-TAU).
    case periodicTAU
    /// T3324 (Active-Time).
    case activeTime

    /// Seconds per value step for each unit code; nil marks "deactivated" (111).
    ///
    /// T3412 extended: 000 10 min, 001 1 h, 010 10 h, 011 2 s, 100 30 s, 101 1 min, 110 320 h.
    /// T3324: 000 2 s, 001 1 min, 010 6 min (decihours); 011…110 are reserved and 24.008 says to
    /// read them as 1 min.
    public var unitSeconds: [Int?] {
        switch self {
        case .periodicTAU: [600, 3600, 36000, 2, 30, 60, 1_152_000, nil]
        case .activeTime: [2, 60, 360, 60, 60, 60, 60, nil]
        }
    }

    /// The units an encoder may choose, smallest step first (reserved codes excluded).
    private var encodableUnits: [(code: Int, step: Int)] {
        let codes: [Int] =
            switch self {
            case .periodicTAU: [3, 4, 5, 0, 1, 2, 6]
            case .activeTime: [0, 1, 2]
            }
        return codes.map { ($0, unitSeconds[$0]!) }
    }

    /// The timer in seconds; nil when deactivated or when `bits` is not 8 binary digits.
    public func seconds(fromBits bits: String) -> Int? {
        guard bits.count == 8, let raw = Int(bits, radix: 2), bits.allSatisfy({ $0 == "0" || $0 == "1" }) else {
            return nil
        }
        guard let step = unitSeconds[raw >> 5] else { return nil }
        return step * (raw & 0x1F)
    }

    /// The bit string for `seconds` (nil: deactivated), and the value it actually encodes.
    ///
    /// An exact encoding is preferred (the smallest unit that represents `seconds` exactly);
    /// otherwise the value is rounded **up** to the next representable one, because a timer that
    /// is shorter than asked (an Active-Time too short to receive a reply) is worse than a longer
    /// one. Values above the largest representable (31 × 320 h) are clamped to it.
    public func bits(forSeconds seconds: Int?) -> (bits: String, seconds: Int?) {
        guard let seconds else { return ("111" + "00000", nil) }
        let wanted = max(0, seconds)
        let units = encodableUnits
        if let exact = units.first(where: { wanted % $0.step == 0 && wanted / $0.step <= 31 }) {
            return (Self.render(unit: exact.code, value: wanted / exact.step), wanted)
        }
        for unit in units.sorted(by: { $0.step < $1.step }) {
            let value = (wanted + unit.step - 1) / unit.step
            if value <= 31 {
                return (Self.render(unit: unit.code, value: value), value * unit.step)
            }
        }
        let largest = units.max { $0.step < $1.step }!
        return (Self.render(unit: largest.code, value: 31), 31 * largest.step)
    }

    private static func render(unit: Int, value: Int) -> String {
        let raw = (unit << 5) | value
        let text = String(raw, radix: 2)
        return String(repeating: "0", count: 8 - text.count) + text
    }
}
