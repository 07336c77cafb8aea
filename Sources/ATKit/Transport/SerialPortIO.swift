import Dispatch
import Foundation
import PosixSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file-descriptor side of ``SerialPortTransport``: read by the process's ``SerialPortPoller``
/// thread, written directly or through one serial write queue.
///
/// Ownership and shutdown (the reason this is a separate object):
/// - The poller owns the fd's lifetime while the port is open. It waits in `poll()` on the port
///   *and* on the read end of this port's ``WakePipe``; `close()` from another thread does not wake
///   a thread blocked on an fd, but a byte in the wake pipe does wake `poll()`.
/// - Writes go straight to the (non-blocking) fd when no earlier write is still queued and the
///   TTY takes all the bytes at once, which is nearly always (an AT command is a few dozen bytes,
///   a TTY buffers kilobytes). What the TTY does not take at once waits on `writeQueue`, never on
///   a cooperative thread (a full TTY output buffer would block it); later writes queue behind it,
///   so bytes leave in call order. A blocked write also polls the wake pipe. Why not always the
///   queue: each write then borrowed a dispatch worker thread, and with every module polled at
///   once the process grew a thread per port (29 more threads with 32 modules).
/// - Shutdown, for any reason (``requestClose()``, EOF, `EIO`, `POLLHUP`): the poller takes the port
///   out of its poll set and calls ``release(reason:)``, which records the first reason, writes the
///   wake byte (which stays unread, so a write blocked in `poll()` returns at once) and hands the
///   rest to `writeQueue`: behind every write queued before, it closes the fd (which drops the
///   `flock`) and the pipe. Writes queued later see the reason and never touch the fd. `close()`
///   callers are resumed after that, so a port can be reopened as soon as `close()` returns.
/// - The poller holds this object, not the public transport, so dropping the last transport
///   reference can request a close from `deinit`.
final class SerialPortIO: Sendable {
    private struct State {
        /// The first reason the port stopped; set once.
        var closeReason: ATTransportError.CloseReason?
        /// The fd and the wake pipe are closed; never touch them again.
        var released = false
        /// Writes handed to `writeQueue` and not finished; while there are any, new writes queue too.
        var queuedWrites = 0
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
    }

    let port: String
    let inbox: ATByteInbox
    /// Read by ``SerialPortPoller`` only while the port is in its poll set (before ``release(reason:)``).
    let fd: Int32
    /// The close-wake pipe: its read end is in the poll set beside `fd`.
    let wake: WakePipe
    private let exclusive: Bool
    private let writeQueue: DispatchQueue
    private let state = Mutex(State())

    init(port: String, fd: Int32, wake: WakePipe, exclusive: Bool, receiveBufferLimit: Int) {
        self.port = port
        self.fd = fd
        self.wake = wake
        self.exclusive = exclusive
        self.inbox = ATByteInbox(limit: receiveBufferLimit)
        self.writeQueue = DispatchQueue(label: "ATKit.SerialPort.write \(port)")
    }

    /// Hands the port to `poller`, which reads it from now on. Call once.
    func start(on poller: SerialPortPoller) {
        poller.add(self)
    }

    var closeReason: ATTransportError.CloseReason? { state.withLock { $0.closeReason } }

    // MARK: Reading (poller thread only)

    private enum ReadOutcome {
        case drained
        /// The port's turn is over with bytes still waiting; the poller comes back to it.
        case more
        case closed(ATTransportError.CloseReason)
    }

    /// Reads of one buffer each a port gets per wake-up. Why a bound: one thread reads every port,
    /// and a port that sends without pause (a babbling module, garbage on the line) would
    /// otherwise keep it reading that port forever while every other port starved. Readiness is
    /// level-triggered, so what is left is read at the next turn, after the other ready ports.
    static let readsPerTurn = 4

    /// Handles what `poll()` reported for this port's fd and wake pipe: reads what arrived into the
    /// inbox; returns why the port must close, or nil while it stays open.
    func service(portEvents: FDEvents, wakeEvents: FDEvents, buffer: inout [UInt8]) -> ATTransportError.CloseReason? {
        if !wakeEvents.isEmpty {
            return .closedLocally
        }
        if portEvents.isEmpty { return nil }
        if portEvents.contains(.invalid) {
            return .ioError(errno: EBADF)
        }
        // POLLHUP often comes together with the last bytes the device sent: read first, and let
        // read() (0 or EIO) say that the port is gone.
        switch readAvailable(into: &buffer) {
        case .closed(let why):
            return why
        case .drained:
            // Hung up and nothing left to read; without this check poll() would keep returning
            // POLLHUP and the poller would spin.
            return portEvents.isDisjoint(with: [.hangUp, .error]) ? nil : .hangUp
        case .more:
            return nil
        }
    }

    private func readAvailable(into buffer: inout [UInt8]) -> ReadOutcome {
        var reads = 0
        while true {
            guard reads < Self.readsPerTurn else { return .more }
            let count = buffer.withUnsafeMutableBytes { Posix.read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                inbox.append(buffer[0..<count])
                reads += 1
                continue
            }
            if count == 0 {
                return .closed(.endOfFile)
            }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .drained
            default: return .closed(.ioError(errno: errno))
            }
        }
    }

    /// Closes the port for `reason` (the first reason recorded wins). Called by the poller once the
    /// port is out of its poll set; the descriptors are closed on `writeQueue`, behind every write
    /// queued before, so no write still uses the fd when its number is given back to the kernel.
    func release(reason: ATTransportError.CloseReason) {
        let finalReason = state.withLock { state in
            if state.closeReason == nil { state.closeReason = reason }
            return state.closeReason ?? reason
        }
        // Wakes a write blocked in poll(); it then sees closeReason and returns.
        signalWake()
        writeQueue.async { [self] in
            if exclusive {
                _ = flock(fd, LOCK_UN)
                _ = ioctl(fd, UInt(TIOCNXCL))
            }
            let waiters = state.withLock { state in
                Posix.close(fd)
                wake.close()
                state.released = true
                defer { state.closeWaiters.removeAll() }
                return state.closeWaiters
            }
            inbox.finish(throwing: ATTransportError.closed(port: port, reason: finalReason))
            for waiter in waiters {
                waiter.resume()
            }
        }
    }

    // MARK: Closing (any thread)

    /// Asks the poller to close the port; returns immediately.
    func requestClose() {
        state.withLock { state in
            guard !state.released else { return }
            if state.closeReason == nil { state.closeReason = .closedLocally }
            writeWakeByte()
        }
    }

    /// Asks the poller to close the port and waits until the fd is closed and the lock released.
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let released = state.withLock { state in
                if state.released { return true }
                if state.closeReason == nil { state.closeReason = .closedLocally }
                state.closeWaiters.append(continuation)
                writeWakeByte()
                return false
            }
            if released { continuation.resume() }
        }
    }

    private func signalWake() {
        state.withLock { state in
            guard !state.released else { return }
            writeWakeByte()
        }
    }

    /// Only call with the state lock held and `released == false`: the byte is then written before
    /// the poller can have released the port.
    private func writeWakeByte() {
        wake.wake()
    }

    // MARK: Writing

    /// Writes all bytes: at once when the TTY takes them, else the rest on the write queue.
    func write(_ bytes: [UInt8]) async throws {
        let rest: [UInt8]
        switch writeWithoutWaiting(bytes) {
        case .done: return
        case .failed(let error): throw error
        case .queue(let remaining): rest = remaining
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            writeQueue.async { [self] in
                let result = Result { try writeBlocking(rest) }
                state.withLock { $0.queuedWrites -= 1 }
                continuation.resume(with: result)
            }
        }
    }

    private enum ImmediateWrite {
        case done
        case failed(ATTransportError)
        /// These bytes (all or the tail) go to the write queue; `queuedWrites` counts them already.
        case queue([UInt8])
    }

    /// Writes what the TTY takes without waiting, under the state lock: the fd cannot be closed
    /// meanwhile (``release(reason:)`` closes it under the same lock), and no other write can get
    /// between the check for queued writes and this one.
    private func writeWithoutWaiting(_ bytes: [UInt8]) -> ImmediateWrite {
        state.withLock { state in
            if let reason = state.closeReason { return .failed(.closed(port: port, reason: reason)) }
            guard !state.released else { return .failed(.closed(port: port, reason: .closedLocally)) }
            guard state.queuedWrites == 0 else {
                state.queuedWrites += 1
                return .queue(bytes)
            }
            var offset = 0
            switch writeReady(bytes, from: &offset) {
            case .all: return .done
            case .wouldBlock: break
            case .failed(let code): return .failed(.closed(port: port, reason: .ioError(errno: code)))
            }
            state.queuedWrites += 1
            return .queue(Array(bytes[offset...]))
        }
    }

    /// Runs on `writeQueue` only.
    private func writeBlocking(_ bytes: [UInt8]) throws(ATTransportError) {
        var offset = 0
        while true {
            if let reason = closeReason {
                throw .closed(port: port, reason: reason)
            }
            switch writeReady(bytes, from: &offset) {
            case .all:
                return
            case .wouldBlock:
                // Output buffer full (a slow 9600 baud line, or a device that stopped reading).
                // Wait for room, or for the wake pipe if the port is being closed meanwhile.
                var fds = [
                    pollfd(fd: fd, events: Int16(POLLOUT), revents: 0),
                    pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0),
                ]
                _ = poll(&fds, nfds_t(fds.count), -1)
            case .failed(let code):
                throw .closed(port: port, reason: closeReason ?? .ioError(errno: code))
            }
        }
    }

    private enum WriteProgress {
        /// Every byte from the start offset on was written.
        case all
        /// The TTY's output buffer is full; `offset` says how far it got.
        case wouldBlock
        /// `write()` failed with this errno.
        case failed(Int32)
    }

    /// Writes `bytes[offset...]` to the non-blocking fd until done, full or failed, advancing
    /// `offset` (EINTR is retried).
    private func writeReady(_ bytes: [UInt8], from offset: inout Int) -> WriteProgress {
        while offset < bytes.count {
            let start = offset
            let written = bytes.withUnsafeBytes { raw in
                Posix.write(fd, raw.baseAddress! + start, raw.count - start)
            }
            if written >= 0 {
                offset += written
                continue
            }
            let code = errno
            switch code {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .failed(code)
            }
        }
        return .all
    }
}
