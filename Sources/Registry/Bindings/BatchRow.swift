import NBGWCore

/// One data row of a CSV batch as its reader made it: which device, for whom, on which line.
/// The store decides the row (``BatchSession/bindChunk(_:operator:complete:)``) under the same
/// rules as a single bind.
public struct BatchRow: Sendable, Equatable {
    /// How the row names its device.
    public enum Device: Sendable, Equatable {
        /// A device id (an NB bind payload).
        case id(String)
        /// The code of a label issued under the configured cloud's prefix; `unknown` is the error
        /// when no device has it (the cloud's words, so every path says the same).
        case labelCode(String, unknown: NBGWError)
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
