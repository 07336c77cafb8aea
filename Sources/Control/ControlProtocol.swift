import Foundation

/// The daemon's control socket protocol (docs/control.md): one JSON object per line (UTF-8, `\n`
/// terminated, at most ``maxLineBytes``), over a Unix stream socket.
///
/// Every server line is a ``ControlReply``: `type` says what `result` (or `error`) holds.
///
/// ```
/// server → {"v":1,"type":"hello","result":{"daemon":"nbgwd","version":"0.2.0","protocol":1,"pid":812,
///           "user":"alice","store":"/var/lib/nbgw/nbgw.sqlite"}}
/// client → {"v":1,"id":1,"op":"at","modem":"866971030221959","command":"AT+CSQ"}
/// server → {"v":1,"id":1,"type":"result","result":{"modem":{…},"command":"AT+CSQ","lines":["+CSQ: 20,99"],…}}
/// client → {"v":1,"id":2,"op":"action","modem":"/dev/ttyUSB2","action":"reset"}
/// server → {"v":1,"id":2,"type":"error","error":{"code":"MODEM_BUSY","message":"…"}}
/// client → {"v":1,"id":3,"op":"watch"}
/// server → {"v":1,"id":3,"type":"result","result":{"modems":[…]}}
/// server → {"v":1,"type":"event","result":{"port":"/dev/ttyUSB2","imei":"…","state":"ready",…}}  (until close)
/// ```
///
/// `v` is the protocol version: a server answers a request of another version with
/// `INVALID_ARGUMENT` naming the version it speaks; within a version fields are only ever added,
/// so clients ignore keys they do not know.
public enum ControlProtocol {
    /// The version this build speaks.
    public static let version = 1
    /// Where `nbgwd` listens unless `[control] socket` says otherwise (`/run/nbgw`, which the
    /// package's tmpfiles.d makes in the operators' group).
    public static let defaultSocketPath = "/run/nbgw/control.sock"
    /// The longest line either side accepts. Why 64 KiB: the largest message is a modem list of a
    /// few hundred modules (about 300 bytes each); AT answers are capped by the session.
    public static let maxLineBytes = 64 * 1024

    /// What a client may ask.
    public enum Operation: String, Sendable, Codable, CaseIterable {
        /// The server's hello again.
        case hello
        /// Every module the daemon knows now.
        case modems
        /// One module (`modem`: IMEI or port).
        case modem
        /// An AT command on a supervised module's own session (`modem`, `command`, `timeout`, `force`).
        case at
        /// `reset`, `reprobe`, `release` or `resume` (`modem`, `action`).
        case action
        /// Every state change from now on, after the current list (`modem` optional: one module).
        case watch
        /// A supervised module's URCs from now on (`modem`).
        case urcs
        /// Every tty the daemon's discovery saw, with its decision.
        case discovery
    }
}

/// A client's request.
public struct ControlRequest: Sendable, Codable, Equatable {
    public var v: Int
    public var id: Int
    public var op: String
    public var modem: String?
    public var command: String?
    /// Seconds to wait for the command's final result (an AT request); the daemon caps it.
    public var timeout: Double?
    /// Send a command that would break the supervisor's view of the module, then re-probe it.
    public var force: Bool?
    public var action: String?

    public init(
        id: Int,
        op: ControlProtocol.Operation,
        modem: String? = nil,
        command: String? = nil,
        timeout: Double? = nil,
        force: Bool? = nil,
        action: String? = nil
    ) {
        self.v = ControlProtocol.version
        self.id = id
        self.op = op.rawValue
        self.modem = modem
        self.command = command
        self.timeout = timeout
        self.force = force
        self.action = action
    }
}

/// The server's greeting, the `result` of the first line on every connection.
public struct ControlHello: Sendable, Codable, Equatable {
    public var daemon: String
    public var version: String
    public var `protocol`: Int
    public var pid: Int32
    /// The peer as the server saw it (its user name).
    public var user: String
    /// The store the daemon uses.
    public var store: String

    public init(daemon: String, version: String, protocol: Int, pid: Int32, user: String, store: String) {
        self.daemon = daemon
        self.version = version
        self.protocol = `protocol`
        self.pid = pid
        self.user = user
        self.store = store
    }
}

/// A refused request.
public struct ControlError: Sendable, Codable, Equatable {
    /// An nbgw error code (`UNKNOWN_MODEM`, `MODEM_BUSY`, `COMMAND_REFUSED`, `PERMISSION_DENIED`,
    /// `INVALID_ARGUMENT`…).
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}

/// One line from the server: `type` says which of the optional fields it carries.
public struct ControlReply<Result: Codable & Sendable>: Sendable, Codable {
    public enum Kind: String, Sendable, Codable {
        case hello, result, error, event, urc
    }

    public var v: Int
    /// The request answered (`result`, `error`); nil for `hello`, `event` and `urc`.
    public var id: Int?
    public var type: Kind
    public var result: Result?
    public var error: ControlError?

    public init(id: Int?, type: Kind, result: Result? = nil, error: ControlError? = nil) {
        self.v = ControlProtocol.version
        self.id = id
        self.type = type
        self.result = result
        self.error = error
    }
}

/// What every line has, read first to know what else it holds.
public struct ControlReplyHead: Sendable, Codable {
    public var v: Int
    public var id: Int?
    public var type: ControlReply<Empty>.Kind
    public var error: ControlError?
}

/// No payload.
public struct Empty: Sendable, Codable, Equatable {
    public init() {}
}
