#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a descriptor is waited for, or what it reported: `poll(2)`'s bits, which on Linux are also
/// `epoll(7)`'s (`EPOLLIN` = `POLLIN`, …).
public struct FDEvents: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// `POLLIN`: there are bytes to read, a connection to accept, or the other end closed.
    public static let readable = FDEvents(rawValue: UInt32(POLLIN))
    /// `POLLOUT`: a write would take at least one byte.
    public static let writable = FDEvents(rawValue: UInt32(POLLOUT))
    /// `POLLERR`: an error is pending (always reported, never asked for).
    public static let error = FDEvents(rawValue: UInt32(POLLERR))
    /// `POLLHUP`: the other end hung up (always reported, never asked for).
    public static let hangUp = FDEvents(rawValue: UInt32(POLLHUP))
    /// `POLLNVAL`: the descriptor is not open (`poll(2)` only; epoll refuses it when it is added).
    public static let invalid = FDEvents(rawValue: UInt32(POLLNVAL))
}
