import PosixSupport

/// A notification could not be sent to systemd's socket.
public struct SystemdNotifierError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The socket, as `NOTIFY_SOCKET` names it.
    public var socket: String
    /// The failing step (`socket`, `sendto`, `address`).
    public var operation: String
    /// The `errno` value.
    public var code: Int32

    public init(socket: String, operation: String, code: Int32) {
        self.socket = socket
        self.operation = operation
        self.code = code
    }

    public var description: String {
        "cannot notify systemd at \(socket) (\(operation): \(Errno.message(code))); check NOTIFY_SOCKET "
            + "or run the unit with Type=notify"
    }
}
