/// The PSM request stored in the module (`AT+CPSMS?`, 3GPP TS 27.007 §7.38).
public struct PowerSavingSettings: Sendable, Hashable {
    public var enabled: Bool
    /// Requested Periodic-TAU (T3412 extended) bit string.
    public var periodicTAUBits: String?
    /// Requested Active-Time (T3324) bit string.
    public var activeTimeBits: String?

    public init(enabled: Bool, periodicTAUBits: String?, activeTimeBits: String?) {
        self.enabled = enabled
        self.periodicTAUBits = periodicTAUBits
        self.activeTimeBits = activeTimeBits
    }

    public var periodicTAUSeconds: Int? { periodicTAUBits.flatMap { PSMTimer.periodicTAU.seconds(fromBits: $0) } }
    public var activeTimeSeconds: Int? { activeTimeBits.flatMap { PSMTimer.activeTime.seconds(fromBits: $0) } }
}
