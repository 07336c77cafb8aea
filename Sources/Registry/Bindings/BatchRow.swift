import NBGWCore

/// One data row of a CSV batch as its reader made it: which device, for whom, on which line.
/// The store decides the row (``BatchSession/bindChunk(_:operator:complete:)``) under the same
/// rules as a single bind.
public struct BatchRow: Sendable, Equatable {
    /// How the row names its device.
    public enum Device: Sendable, Equatable {
        /// A device id (an NB bind payload).
        case id(String)
        /// The code of a label issued under the configured cloud's prefix. When no device has it,
        /// the row is refused with ``LabelReference/unknownError(code:)``, the words of every path.
        ///
        /// Why the code alone, not a ready-made error: the error was built for every label row (99 %
        /// of which resolve) and copied through the chunk; without it a million-row batch went
        /// 7.36 → 7.22 s (median of 4 alternating runs of each build on one store, 2026-11-27).
        case labelCode(String)
        /// A module's IMEI (15 digits, checked); refused with ``IMEI/unknownError(digits:)`` when no
        /// module here has it.
        case imei(String)
    }

    /// The row's physical line in the file.
    public var line: Int
    public var device: Device
    public var accountName: String
    public var homeName: String

    public init(line: Int, device: Device, accountName: String, homeName: String) {
        self.line = line
        self.device = device
        self.accountName = accountName
        self.homeName = homeName
    }
}

/// How the store decided a ``BatchRow``.
public enum BatchRowOutcome: Sendable, Equatable {
    case bound(deviceID: String)
    case unchanged(deviceID: String)
    /// A rule refused it (the same code and message as a single bind); `deviceID` when known.
    case refused(NBGWError, deviceID: String?)
}
