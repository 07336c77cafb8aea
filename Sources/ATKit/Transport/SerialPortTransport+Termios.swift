#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension SerialPortTransport {
    /// The `termios` speed constant for `baudRate`, or nil when the platform has none.
    static func speed(for baudRate: Int) -> speed_t? {
        #if os(Linux)
        switch baudRate {
        case 1200: speed_t(B1200)
        case 2400: speed_t(B2400)
        case 4800: speed_t(B4800)
        case 9600: speed_t(B9600)
        case 19200: speed_t(B19200)
        case 38400: speed_t(B38400)
        case 57600: speed_t(B57600)
        case 115_200: speed_t(B115200)
        case 230_400: speed_t(B230400)
        case 460_800: speed_t(B460800)
        case 500_000: speed_t(B500000)
        case 576_000: speed_t(B576000)
        case 921_600: speed_t(B921600)
        case 1_000_000: speed_t(B1000000)
        case 1_152_000: speed_t(B1152000)
        case 1_500_000: speed_t(B1500000)
        case 2_000_000: speed_t(B2000000)
        case 3_000_000: speed_t(B3000000)
        case 4_000_000: speed_t(B4000000)
        default: nil
        }
        #else
        // Darwin's speed_t is the numeric rate itself.
        SerialPortConfiguration.supportedBaudRates.contains(baudRate) ? speed_t(baudRate) : nil
        #endif
    }

    /// Puts `fd` into raw 8N1 mode at `speed`, without flow control.
    ///
    /// - `cfmakeraw`: no echo, no canonical line editing, no CR/LF translation, no signals. In
    ///   cooked mode the port would read back its own writes and `\r` would turn into `\n`.
    /// - `CLOCAL`: ignore modem-control lines, so a USB-serial bridge with no DCD wired does not
    ///   block or hang up. `CREAD`: enable the receiver.
    /// - No `CRTSCTS` and no `IXON`/`IXOFF`: AT ports here are used without flow control; XON/XOFF
    ///   would also swallow 0x11/0x13 bytes in binary payloads.
    /// - `VMIN = 1, VTIME = 0`: irrelevant with `O_NONBLOCK` + `poll()`, but a sane value if a
    ///   caller ever clears `O_NONBLOCK`.
    static func configureRaw(fd: Int32, speed: speed_t, port: String) throws(ATTransportError) {
        var options = termios()
        guard tcgetattr(fd, &options) == 0 else {
            throw .configurationFailed(port: port, operation: "tcgetattr", errno: errno)
        }
        cfmakeraw(&options)
        options.c_cflag |= tcflag_t(CLOCAL | CREAD)
        options.c_cflag &= ~tcflag_t(CSIZE | PARENB | CSTOPB)
        options.c_cflag |= tcflag_t(CS8)
        #if os(Linux)
        options.c_cflag &= ~tcflag_t(bitPattern: Int32(truncatingIfNeeded: CRTSCTS))
        #else
        options.c_cflag &= ~tcflag_t(CRTSCTS)
        #endif
        options.c_iflag &= ~tcflag_t(IXON | IXOFF | IXANY)
        withUnsafeMutableBytes(of: &options.c_cc) { controlCharacters in
            controlCharacters[Int(VMIN)] = 1
            controlCharacters[Int(VTIME)] = 0
        }
        guard cfsetispeed(&options, speed) == 0, cfsetospeed(&options, speed) == 0 else {
            throw .configurationFailed(port: port, operation: "cfsetspeed", errno: errno)
        }
        guard tcsetattr(fd, TCSANOW, &options) == 0 else {
            throw .configurationFailed(port: port, operation: "tcsetattr", errno: errno)
        }
        // Drop whatever the driver buffered before we owned the port (half a boot banner, the
        // previous owner's unread replies): it would otherwise be parsed as a reply to our first
        // command. Failure is harmless.
        _ = tcflush(fd, TCIOFLUSH)
    }
}
