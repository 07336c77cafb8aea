import PosixSupport

/// Why a transport could not be opened or stopped working. Every case names the port.
public enum ATTransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why a transport stopped delivering bytes.
    public enum CloseReason: Sendable, Hashable, CustomStringConvertible {
        /// ``ATTransport/close()`` was called on this side.
        case closedLocally
        /// `read()` returned 0: the other end closed (a pty master went away, a USB-serial driver
        /// unbound).
        case endOfFile
        /// `poll()` reported `POLLHUP`/`POLLERR` without data: the device hung up (unplug).
        case hangUp
        /// A read or write failed with this `errno` (`EIO`, `ENXIO` and `ENODEV` are what Linux
        /// reports for a USB modem that was unplugged or reset).
        case ioError(errno: Int32)
        /// A transport that is not a file descriptor (a test double, a network bridge) failed.
        case failed(String)

        public var description: String {
            switch self {
            case .closedLocally: "closed locally"
            case .endOfFile: "end of file (the other side closed)"
            case .hangUp: "hang-up (device removed?)"
            case .ioError(let code): "I/O error: \(ATTransportError.describe(errno: code))"
            case .failed(let text): "transport failed: \(text)"
            }
        }
    }

    /// `open(2)` failed.
    case openFailed(port: String, errno: Int32)
    /// Another process (or another transport in this process) holds the exclusive `flock` on the port.
    case portBusy(port: String)
    /// Setting up the port failed (`flock` for a reason other than contention, `tcgetattr`,
    /// `tcsetattr`, ...).
    case configurationFailed(port: String, operation: String, errno: Int32)
    /// The requested baud rate has no `termios` speed constant.
    case unsupportedBaudRate(port: String, baudRate: Int)
    /// The port is closed; see ``CloseReason``.
    case closed(port: String, reason: CloseReason)

    /// The port the error is about.
    public var port: String {
        switch self {
        case .openFailed(let port, _), .portBusy(let port), .configurationFailed(let port, _, _),
            .unsupportedBaudRate(let port, _), .closed(let port, _):
            port
        }
    }

    public var description: String {
        switch self {
        case .openFailed(let port, let code):
            "cannot open \(port): \(Self.describe(errno: code))"
        case .portBusy(let port):
            "\(port) is in use: another process holds its exclusive lock (is ModemManager or a second nbgw probing it?)"
        case .configurationFailed(let port, let operation, let code):
            "cannot configure \(port): \(operation) failed: \(Self.describe(errno: code))"
        case .unsupportedBaudRate(let port, let baudRate):
            "cannot configure \(port): unsupported baud rate \(baudRate)"
        case .closed(let port, let reason):
            "\(port) is closed: \(reason)"
        }
    }

    static func describe(errno code: Int32) -> String {
        "\(Errno.message(code)) (errno \(code))"
    }
}
