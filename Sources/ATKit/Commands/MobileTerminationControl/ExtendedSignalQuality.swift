/// The `+CESQ` indices (3GPP TS 27.007 §8.69) and the E-UTRA ones in dB/dBm.
public struct ExtendedSignalQuality: Sendable, Hashable {
    /// GSM received level 0…63, 99 = unknown.
    public var rxlev: Int
    /// GSM bit error rate 0…7, 99 = unknown.
    public var ber: Int
    /// UTRA RSCP 0…96, 255 = unknown.
    public var rscp: Int
    /// UTRA Ec/No 0…49, 255 = unknown.
    public var ecno: Int
    /// E-UTRA RSRQ 0…34, 255 = unknown.
    public var rsrq: Int
    /// E-UTRA RSRP 0…97, 255 = unknown.
    public var rsrp: Int

    public init(rxlev: Int, ber: Int, rscp: Int, ecno: Int, rsrq: Int, rsrp: Int) {
        self.rxlev = rxlev
        self.ber = ber
        self.rscp = rscp
        self.ecno = ecno
        self.rsrq = rsrq
        self.rsrp = rsrp
    }

    /// RSRP in dBm, nil when unknown: see ``rsrpDBm(index:)``.
    public var rsrpDBm: Int? { Self.rsrpDBm(index: rsrp) }

    /// RSRQ in dB, nil when unknown: see ``rsrqDB(index:)``.
    public var rsrqDB: Double? { Self.rsrqDB(index: rsrq) }

    /// Index `n` covers [−141 + n, −140 + n) dBm (36.133 §9.1.4): −141 + n, as ModemManager does
    /// (0 means below −140 dBm, 97 means −44 dBm or more); nil for 255 and out of range.
    public static func rsrpDBm(index: Int) -> Int? {
        (0...97).contains(index) ? index - 141 : nil
    }

    /// Index `n` covers [−20 + n/2, −19.5 + n/2) dB (36.133 §9.1.7): −20 + n/2 (0 means below
    /// −19.5 dB, 34 means −3 dB or more); nil for 255 and out of range.
    public static func rsrqDB(index: Int) -> Double? {
        (0...34).contains(index) ? -20 + Double(index) / 2 : nil
    }

    /// The RSRP index for a level in dBm, clamped to 0…97.
    public static func rsrpIndex(dBm: Int) -> Int {
        min(97, max(0, dBm + 141))
    }

    /// The RSRQ index for a level in dB, clamped to 0…34.
    public static func rsrqIndex(dB: Double) -> Int {
        min(34, max(0, Int(((dB + 20) * 2).rounded(.down))))
    }
}
