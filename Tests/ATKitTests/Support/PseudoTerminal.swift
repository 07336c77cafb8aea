import Foundation
import Synchronization

@testable import ATKit

#if canImport(Glibc)
import Glibc
#endif

/// A pseudo-terminal pair. The code under test opens ``slavePath`` like a real `/dev/ttyUSB*`; the
/// test plays the modem on the master side.
///
/// Reads on the master side wait for data with `poll()`, bounded by a generous safety deadline so a
/// broken test fails instead of hanging; no test relies on that deadline for its behaviour.
final class PseudoTerminal: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
        /// Reading the master failed with EIO/EOF: no slave descriptor is open any more.
        var isHangUp = false
    }

    let master: Int32
    let slavePath: String
    private let slave = Mutex<Int32>(-1)
    private let pending = Mutex<[UInt8]>([])
    private let masterClosed = Mutex(false)

    init() throws {
        var master: Int32 = -1
        var slave: Int32 = -1
        var name = [CChar](repeating: 0, count: 4096)
        guard openpty(&master, &slave, &name, nil, nil) == 0 else {
            throw Failure(description: "openpty failed: errno \(errno)")
        }
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
        self.master = master
        self.slave.withLock { $0 = slave }
        self.slavePath = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit {
        releaseSlave()
        closeMaster()
    }

    /// Closes the test's own slave descriptor (keep it open until the port under test has opened
    /// the slave, or the master would see a hang-up in between).
    func releaseSlave() {
        slave.withLock { fd in
            if fd >= 0 { close(fd) }
            fd = -1
        }
    }

    /// Unplugs the "modem": the port side then reads EOF/EIO and its writes fail.
    func closeMaster() {
        masterClosed.withLock { closed in
            if !closed { close(master) }
            closed = true
        }
    }

    /// Modem → host.
    func write(_ text: String) throws {
        try write(bytes: Array(text.utf8))
    }

    func write(bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(master, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                throw Failure(description: "master write failed: errno \(errno)")
            }
            offset += written
        }
    }

    /// Host → modem: the next CR-terminated line, without the CR.
    func readLine(deadline: Duration = .seconds(20)) async throws -> String {
        let bytes = try await read(deadline: deadline) { buffer in
            buffer.firstIndex(of: 0x0D).map { (Array(buffer[..<$0]), $0 + 1) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Host → modem: exactly `count` bytes.
    func readBytes(_ count: Int, deadline: Duration = .seconds(20)) async throws -> [UInt8] {
        try await read(deadline: deadline) { buffer in
            buffer.count >= count ? (Array(buffer.prefix(count)), count) : nil
        }
    }

    /// Waits until reading the master fails with EIO: the port side has closed the slave.
    func waitForSlaveClose(deadline: Duration = .seconds(20)) async throws {
        do {
            _ = try await read(deadline: deadline) { _ in nil }
        } catch let failure as Failure where failure.isHangUp {
            return
        }
    }

    /// Runs a blocking poll loop on its own thread until `extract` finds something in the bytes read
    /// so far. Throws on EOF/EIO (with the reason) or when the safety deadline passes. (Not on
    /// `DispatchQueue.global()`: with 2 cores its few workers would be blocked by parallel tests'
    /// readers, and libdispatch only adds workers after a starvation delay of seconds.)
    private func read(
        deadline: Duration,
        extract: @escaping @Sendable ([UInt8]) -> (value: [UInt8], consumed: Int)?
    ) async throws -> [UInt8] {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { [self] in
                continuation.resume(with: Result { try readBlocking(deadline: deadline, extract: extract) })
            }
            thread.start()
        }
    }

    private func readBlocking(
        deadline: Duration,
        extract: ([UInt8]) -> (value: [UInt8], consumed: Int)?
    ) throws -> [UInt8] {
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: deadline)
        var chunk = [UInt8](repeating: 0, count: 1024)
        while true {
            let found = pending.withLock { buffer -> [UInt8]? in
                guard let (value, consumed) = extract(buffer) else { return nil }
                buffer.removeFirst(consumed)
                return value
            }
            if let found { return found }
            guard clock.now < end else { throw Failure(description: "safety deadline passed waiting for the host") }
            var fds = [pollfd(fd: master, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 1, 100)
            let count = chunk.withUnsafeMutableBytes { Glibc.read(master, $0.baseAddress, $0.count) }
            if count > 0 {
                pending.withLock { $0 += chunk[0..<count] }
            } else if count == 0 {
                throw Failure(description: "EOF on master", isHangUp: true)
            } else if errno == EIO {
                throw Failure(description: "EIO on master: the port side closed", isHangUp: true)
            } else if errno != EAGAIN && errno != EINTR {
                throw Failure(description: "master read failed: errno \(errno)")
            }
        }
    }
}
