/// The `+CSQ` indices (3GPP TS 27.007 §8.5) and their meaning in dBm.
public struct SignalQuality: Sendable, Hashable {
    /// `<rssi>`: 0…31, 99 = not known or not detectable.
    public var rssi: Int
    /// `<ber>`: 0…7 (RXQUAL), 99 = not known.
    public var ber: Int

    public init(rssi: Int, ber: Int) {
        self.rssi = rssi
        self.ber = ber
    }

    /// Received signal strength in dBm: −113 + 2·`rssi` (0 means ≤ −113, 31 means ≥ −51); nil for
    /// 99 and out-of-range values. (Drivers differ by 1 dB here; Zephyr's SIM7080 driver uses
    /// −114 + 2n. We follow the 27.007 table.)
    public var rssiDBm: Int? {
        Self.dBm(rssi: rssi)
    }

    /// −113 + 2·`rssi` for 0…31, else nil.
    public static func dBm(rssi: Int) -> Int? {
        (0...31).contains(rssi) ? -113 + 2 * rssi : nil
    }

    /// The index for a level in dBm, clamped to 0…31 (the inverse of ``dBm(rssi:)``, rounding
    /// down to the 2 dB step).
    public static func rssi(dBm: Int) -> Int {
        min(31, max(0, (dBm + 113) / 2))
    }
}
