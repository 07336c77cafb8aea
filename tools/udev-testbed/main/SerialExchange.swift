import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One command/answer exchange on a tty.
struct SerialExchange {
    let devnode: String
    let baud: Int
    let timeout: Duration

    struct Result {
        var lines: [String] = []
        var final: String?
        var milliseconds: Double = 0
        var error: String?
    }

    /// Opens the port, sends `command` and reads to the final result code. With `keepOpen` the
    /// descriptor is returned (and owned by the caller) instead of closed.
    func send(_ command: String, keepOpen: Bool = false) -> (Result, Int32?) {
        let fd = open(devnode, O_RDWR | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else {
            return (Result(error: "cannot open \(devnode): \(String(cString: strerror(errno)))"), nil)
        }
        let result = exchange(command, on: fd)
        if keepOpen { return (result, fd) }
        close(fd)
        return (result, nil)
    }

    private func exchange(_ command: String, on fd: Int32) -> Result {
        var result = Result()
        var options = termios()
        if tcgetattr(fd, &options) == 0, let speed = Self.speed(for: baud) {
            cfmakeraw(&options)
            cfsetispeed(&options, speed)
            cfsetospeed(&options, speed)
            tcsetattr(fd, TCSANOW, &options)
        }
        // A running module's banner may sit in the buffer; a host that opens a port drops it.
        _ = tcflush(fd, TCIOFLUSH)
        let start = ContinuousClock.now
        let bytes = Array((command + "\r").utf8)
        guard bytes.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == bytes.count else {
            result.error = "write to \(devnode) failed: \(String(cString: strerror(errno)))"
            return result
        }
        var pending: [UInt8] = []
        let deadline = start + timeout
        while result.final == nil, ContinuousClock.now < deadline {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let remaining = ContinuousClock.now.duration(to: deadline)
            let milliseconds = Int32(
                max(1, remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000)
            )
            guard poll(&descriptor, 1, milliseconds) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 1024)
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count <= 0 {
                result.error =
                    count == 0 ? "end of file on \(devnode)" : "read failed: \(String(cString: strerror(errno)))"
                break
            }
            pending += buffer[0..<count]
            while let end = pending.firstIndex(where: { $0 == 0x0D || $0 == 0x0A }) {
                let line = String(decoding: pending[..<end], as: UTF8.self)
                pending.removeSubrange(...end)
                guard !line.isEmpty else { continue }
                result.lines.append(line)
                if line == "OK" || line == "ERROR" || line.hasPrefix("+CME ERROR") || line.hasPrefix("+CMS ERROR") {
                    result.final = line
                    break
                }
            }
        }
        result.milliseconds =
            Double((ContinuousClock.now - start).components.attoseconds) / 1e15
            + Double((ContinuousClock.now - start).components.seconds) * 1000
        if result.final == nil, result.error == nil { result.error = "no final result code within \(timeout)" }
        return result
    }

    /// Reads (and drops) whatever the ports send until each one hangs up (read returns 0 or fails, as
    /// after an unplug), calling `hungUp` with the port and the errno of its last read (0: end of file)
    /// as each one does.
    static func waitForHangups(_ ports: [(devnode: String, fd: Int32)], hungUp: (String, Int32) -> Void) {
        var open = ports
        var buffer = [UInt8](repeating: 0, count: 1024)
        while !open.isEmpty {
            var fds = open.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            guard poll(&fds, nfds_t(fds.count), -1) >= 0 || errno == EINTR else { return }
            for (index, descriptor) in fds.enumerated().reversed() where descriptor.revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(descriptor.fd, $0.baseAddress, $0.count) }
                if count > 0 || (count < 0 && (errno == EAGAIN || errno == EINTR)) { continue }
                hungUp(open[index].devnode, count == 0 ? 0 : errno)
                close(descriptor.fd)
                open.remove(at: index)
            }
        }
    }

    static func speed(for baud: Int) -> speed_t? {
        let table: [Int: Int32] = [
            9600: B9600, 19200: B19200, 38400: B38400, 57600: B57600, 115_200: B115200, 230_400: B230400,
            460_800: B460800, 921_600: B921600,
        ]
        return table[baud].map { speed_t($0) }
    }
}
