import PosixSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An ``ATTransport`` over a TTY device (`/dev/ttyUSB*`, `/dev/ttyACM*`, a pty, a umockdev node).
///
/// Opening does, in order:
/// 1. `open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)`: `O_NOCTTY` so a daemon without a
///    controlling terminal does not acquire the modem as one; `O_NONBLOCK` so `open` does not wait
///    for carrier detect and reads are driven by `poll()`.
/// 2. `flock(LOCK_EX | LOCK_NB)` when ``SerialPortConfiguration/exclusive`` is set. Contention is
///    reported as ``ATTransportError/portBusy(port:)``. `flock` is advisory but, unlike
///    `TIOCEXCL`, it also excludes root.
/// 3. `ioctl(TIOCEXCL)`, best effort: it fails with `ENOTTY` under umockdev's preload (as does
///    `isatty()`), which must not stop us.
/// 4. raw 8N1, no flow control, the configured speed (see `configureRaw`), then flush stale input.
///
/// A dedicated thread reads the port (see `SerialPortIO` for the shutdown protocol), so no
/// cooperative thread ever blocks on the device. Unplugging the device (EOF, `EIO`, `ENXIO`,
/// `POLLHUP`) ends the stream with ``ATTransportError/closed(port:reason:)``.
///
/// A transport is single-use: once closed, open a new one. Dropping the last reference without
/// calling ``close()`` still closes the port, asynchronously.
public final class SerialPortTransport: ATTransport {
    public let portName: String
    /// The configuration the port was opened with.
    public let configuration: SerialPortConfiguration
    private let io: SerialPortIO

    /// Opens and configures `path`. See the type documentation for the exact steps.
    public init(
        path: String,
        configuration: SerialPortConfiguration = SerialPortConfiguration()
    ) throws(ATTransportError) {
        guard let speed = Self.speed(for: configuration.baudRate) else {
            throw .unsupportedBaudRate(port: path, baudRate: configuration.baudRate)
        }
        let fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            throw .openFailed(port: path, errno: errno)
        }
        let poller: SerialPortPoller
        let wake: WakePipe
        do throws(ATTransportError) {
            if configuration.exclusive {
                if flock(fd, LOCK_EX | LOCK_NB) != 0 {
                    let code = errno
                    throw code == EWOULDBLOCK
                        ? .portBusy(port: path)
                        : .configurationFailed(port: path, operation: "flock", errno: code)
                }
                // Best effort, see step 3 above.
                _ = ioctl(fd, UInt(TIOCEXCL))
            }
            try Self.configureRaw(fd: fd, speed: speed, port: path)
            poller = try SerialPortPoller.shared(opening: path)
            do {
                wake = try WakePipe()
            } catch {
                throw .configurationFailed(port: path, operation: "pipe", errno: error.code)
            }
        } catch {
            Posix.close(fd)  // also drops the flock
            throw error
        }
        self.portName = path
        self.configuration = configuration
        self.io = SerialPortIO(
            port: path,
            fd: fd,
            wake: wake,
            exclusive: configuration.exclusive,
            receiveBufferLimit: configuration.receiveBufferLimit
        )
        io.start(on: poller)
    }

    deinit {
        io.requestClose()
    }

    public func read() async throws -> [UInt8] {
        try await io.inbox.next()
    }

    public func write(_ bytes: [UInt8]) async throws {
        try await io.write(bytes)
    }

    public func close() async {
        await io.close()
    }

    /// Why the port closed, or nil while it is open.
    public var closeReason: ATTransportError.CloseReason? { io.closeReason }

    /// Bytes dropped because nobody read them (see ``SerialPortConfiguration/receiveBufferLimit``).
    public var droppedByteCount: Int { io.inbox.droppedByteCount }
}
