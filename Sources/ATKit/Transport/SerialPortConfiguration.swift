/// How ``SerialPortTransport`` sets up a TTY.
///
/// The line is always raw 8N1 with no flow control (see ``SerialPortTransport``); only the speed
/// and the locking policy vary.
public struct SerialPortConfiguration: Sendable, Hashable {
    /// Line speed in bit/s. Hi21xx NB-IoT modules (BC95, SARA-N2) default to 9600; most others
    /// (BG9x, BC66, SIM70x0, SARA-R4/R5, nRF91 hosts) to 115200. USB CDC/vendor ports ignore it.
    public var baudRate: Int

    /// Take an exclusive advisory `flock(LOCK_EX | LOCK_NB)` on the port, failing with
    /// ``ATTransportError/portBusy(port:)`` when someone else holds it. On by default: two
    /// programs talking AT on one port interleave commands and steal each other's results.
    public var exclusive: Bool

    /// Bytes kept when nobody reads; older bytes are dropped beyond this.
    public var receiveBufferLimit: Int

    /// The baud rates ``SerialPortTransport`` can set (those with a Linux `termios` constant).
    public static let supportedBaudRates: [Int] = [
        1200, 2400, 4800, 9600, 19200, 38400, 57600, 115_200, 230_400, 460_800, 500_000, 576_000,
        921_600, 1_000_000, 1_152_000, 1_500_000, 2_000_000, 3_000_000, 4_000_000,
    ]

    public init(baudRate: Int = 115_200, exclusive: Bool = true, receiveBufferLimit: Int = 1 << 20) {
        self.baudRate = baudRate
        self.exclusive = exclusive
        self.receiveBufferLimit = receiveBufferLimit
    }
}
