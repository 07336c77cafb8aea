import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Where scans come from, opened read-only: nothing is ever written to a scanner's port, so a
/// scanned payload can never reach a modem's serial port through it.
///
/// - ``Kind/lines``: standard input (a keyboard-wedge scanner typing into the terminal), a serial
///   scanner's tty (set raw at its speed), or a file of payloads: one payload per line.
/// - ``Kind/evdev``: a HID keyboard scanner's `/dev/input/event*` node, grabbed exclusively
///   (`EVIOCGRAB`) so its keystrokes reach nobody else; a recording of one (a file of
///   `struct input_event` records) plays the same way without the grab.
public struct ScanInput: Sendable {
    public enum Kind: Sendable, Equatable {
        case lines
        case evdev(ScanKeyMap)
    }

    /// For messages: `standard input`, the device path.
    public let name: String
    public let kind: Kind
    public let endsWithTab: Bool
    let fd: Int32
    /// Whether the process owns `fd` (closed when reading ends).
    let owned: Bool

    /// `_IOW('E', 0x90, int)` from `linux/input.h`: grab (1) or release (0) an event device.
    static let evdevGrab: UInt = 0x4004_4590

    /// Standard input.
    public static func standardInput(endsWithTab: Bool = false) -> ScanInput {
        ScanInput(name: "standard input", kind: .lines, endsWithTab: endsWithTab, fd: 0, owned: false)
    }

    /// Opens `path` as a scanner.
    ///
    /// - Parameters:
    ///   - kind: nil decides by the path: `/dev/input/…` is an event device, anything else lines.
    ///   - speed: a serial tty's line speed in bit/s (scanners ship at 9600 or 115200).
    public static func open(
        _ path: String,
        kind: Kind? = nil,
        speed: Int = 9600,
        endsWithTab: Bool = false
    ) throws(ScanInputError) -> ScanInput {
        let kind = kind ?? (path.hasPrefix("/dev/input/") ? .evdev(.us) : .lines)
        let fd = Glibc.open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            let hint =
                errno == EACCES
                ? "; run as a member of the device's group (input for /dev/input, dialout for serial ports)" : ""
            throw ScanInputError("cannot open \(path): \(reason)\(hint)")
        }
        var status = stat()
        fstat(fd, &status)
        let isDevice = status.st_mode & S_IFMT == S_IFCHR
        do throws(ScanInputError) {
            switch kind {
            case .evdev:
                if isDevice, ioctl(fd, evdevGrab, Int32(1)) != 0 {
                    let reason = String(cString: strerror(errno))
                    throw ScanInputError(
                        "cannot grab \(path) (EVIOCGRAB: \(reason)): "
                            + (errno == EBUSY
                                ? "another program holds it" : "is it a keyboard event device (/dev/input/event*)?")
                    )
                }
            case .lines:
                if isatty(fd) == 1 { try configureSerial(fd, path: path, speed: speed) }
            }
        } catch {
            close(fd)
            throw error
        }
        return ScanInput(name: path, kind: kind, endsWithTab: endsWithTab, fd: fd, owned: true)
    }

    /// Raw mode at `speed`: no echo, no line editing, no translation of CR, 8N1, ignore modem
    /// control lines; a read returns as soon as one byte is there. Bytes already queued (a code
    /// scanned before the session) are dropped.
    static func configureSerial(_ fd: Int32, path: String, speed: Int) throws(ScanInputError) {
        let speeds: [Int: speed_t] = [
            1200: speed_t(B1200), 2400: speed_t(B2400), 4800: speed_t(B4800), 9600: speed_t(B9600),
            19200: speed_t(B19200), 38400: speed_t(B38400), 57600: speed_t(B57600), 115_200: speed_t(B115200),
            230_400: speed_t(B230400), 460_800: speed_t(B460800), 921_600: speed_t(B921600),
        ]
        guard let code = speeds[speed] else {
            throw ScanInputError(
                "speed \(speed) is not one a serial port takes; use one of "
                    + speeds.keys.sorted().map(String.init).joined(separator: ", ")
            )
        }
        var options = termios()
        guard tcgetattr(fd, &options) == 0 else {
            throw ScanInputError("cannot read the settings of \(path): \(String(cString: strerror(errno)))")
        }
        cfmakeraw(&options)
        options.c_cflag |= tcflag_t(CLOCAL) | tcflag_t(CREAD)
        options.c_cflag &= ~(tcflag_t(CSTOPB) | tcflag_t(CRTSCTS))
        withUnsafeMutableBytes(of: &options.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        cfsetspeed(&options, code)
        guard tcsetattr(fd, TCSANOW, &options) == 0 else {
            throw ScanInputError("cannot set \(path) to \(speed) bit/s raw: \(String(cString: strerror(errno)))")
        }
        tcflush(fd, TCIFLUSH)
    }

    /// Reads scans on a thread of its own (a blocking read never holds a task's thread) until the
    /// input ends (EOF, a hung-up tty, an unplugged scanner), then finishes the stream.
    public func reads() -> AsyncStream<ScanRead> {
        let (stream, continuation) = AsyncStream.makeStream(of: ScanRead.self, bufferingPolicy: .unbounded)
        let input = self
        let thread = Thread {
            input.readLoop { continuation.yield($0) }
            continuation.finish()
        }
        thread.name = "nbgw-scan-input"
        thread.start()
        return stream
    }

    func readLoop(_ deliver: (ScanRead) -> Void) {
        var lines = ScanLineAssembler(endsWithTab: endsWithTab)
        var events: EvdevScanDecoder?
        if case .evdev(let map) = kind { events = EvdevScanDecoder(keyMap: map, endsWithTab: endsWithTab) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        defer {
            if owned {
                if case .evdev = kind { _ = ioctl(fd, Self.evdevGrab, Int32(0)) }
                close(fd)
            }
        }
        while true {
            let count = buffer.withUnsafeMutableBytes { raw in Glibc.read(fd, raw.baseAddress, raw.count) }
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            guard count > 0 else { break }
            for index in 0..<count {
                let read = events != nil ? events!.feed(buffer[index]) : lines.feed(buffer[index])
                if let read { deliver(read) }
            }
        }
        if let last = events != nil ? events!.finish() : lines.finish() { deliver(last) }
    }
}

/// Why a scanner could not be used.
public struct ScanInputError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
