#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A C library error number (`errno(3)`), with the C library's message for it.
///
/// ```swift
/// guard fd >= 0 else { throw Errno.current }              // right after the failing call
/// if error.code == EINTR { continue }
/// "cannot open \(path): \(Errno.message(code))"           // "No such file or directory"
/// ```
public struct Errno: Error, Sendable, Hashable, CustomStringConvertible {
    /// The number, as `errno` had it (`EINTR`, `EAGAIN`, …).
    public let code: Int32

    public init(_ code: Int32) {
        self.code = code
    }

    /// The calling thread's `errno` now: read it right after the call that failed, before anything
    /// else can change it.
    public static var current: Errno { Errno(errno) }

    /// `strerror(3)`'s text, e.g. "Too many open files".
    public var description: String { Self.message(code) }

    /// `strerror(3)`'s text for `code`, or "errno N" when the C library has none.
    public static func message(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }
}
