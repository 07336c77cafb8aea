/// The two ways the code base reads a `Duration`: as seconds for a `Date` or a rate, and as whole
/// milliseconds for the store's timestamps and the wire. One place, so that no caller writes the
/// attosecond arithmetic again.
extension Duration {
    /// Seconds, with the fraction (`.milliseconds(1500)` → 1.5).
    public var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Whole milliseconds, rounded towards zero (`.microseconds(1999)` → 1).
    public var inMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
