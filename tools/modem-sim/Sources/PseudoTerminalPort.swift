import PosixSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pseudo-terminal pair for one simulated port. The host opens ``path`` (the slave) like a
/// `/dev/ttyUSB*`; the simulator plays the module on the master.
///
/// The simulator keeps its own slave descriptor open for the port's whole life: otherwise every
/// time the host closes the port (the probe does, between speeds) the master would read EIO and
/// poll would report POLLHUP in a tight loop until the next open. The slave is put in raw mode at
/// once, because a fresh pty is in cooked mode with echo, and the banner written to the master
/// would be echoed back to the simulator as if the host had typed it.
struct PseudoTerminalPort {
    let master: Int32
    let slave: Int32
    let path: String

    init(nominalBaud: Int) throws(SimulatorConfigurationError) {
        var master: Int32 = -1
        var slave: Int32 = -1
        var name = [CChar](repeating: 0, count: 4096)
        guard openpty(&master, &slave, &name, nil, nil) == 0 else {
            throw SimulatorConfigurationError(
                "openpty failed: \(Errno.current); are /dev/pts and /dev/ptmx available?"
            )
        }
        Self.prepare(master: master, slave: slave, nominalBaud: nominalBaud)
        self.master = master
        self.slave = slave
        self.path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Both ends close on exec, the master never blocks the simulator's loop, and the slave is raw at
    /// the family's nominal speed (what a host that opens it first sees).
    static func prepare(master: Int32, slave: Int32, nominalBaud: Int) {
        for fd in [master, slave] {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
        var options = termios()
        if tcgetattr(slave, &options) == 0 {
            cfmakeraw(&options)
            if let speed = Self.speed(for: nominalBaud) {
                cfsetispeed(&options, speed)
                cfsetospeed(&options, speed)
            }
            tcsetattr(slave, TCSANOW, &options)
        }
    }

    /// The speed the host set on its side (tcgetattr on a pty master reports the slave's termios).
    func currentSpeed() -> Int? {
        var options = termios()
        guard tcgetattr(master, &options) == 0 else { return nil }
        return Self.baudRate(for: cfgetospeed(&options))
    }

    func close() {
        Posix.close(master)
        Posix.close(slave)
    }

    private static let table: [(Int, speed_t)] = [
        (1200, speed_t(B1200)), (2400, speed_t(B2400)), (4800, speed_t(B4800)), (9600, speed_t(B9600)),
        (19200, speed_t(B19200)), (38400, speed_t(B38400)), (57600, speed_t(B57600)), (115_200, speed_t(B115200)),
        (230_400, speed_t(B230400)), (460_800, speed_t(B460800)), (921_600, speed_t(B921600)),
    ]

    static func speed(for baudRate: Int) -> speed_t? {
        table.first { $0.0 == baudRate }?.1
    }

    static func baudRate(for speed: speed_t) -> Int? {
        table.first { $0.1 == speed }?.0
    }
}
