import Discovery
import Foundation
import Gateway

/// `modems` and `watch`: every module the daemon knows now.
public struct ControlModems: Sendable, Codable, Equatable {
    public var modems: [ModemStatus]

    public init(modems: [ModemStatus]) {
        self.modems = modems
    }
}

/// `modem`: one module.
public struct ControlModem: Sendable, Codable, Equatable {
    public var modem: ModemStatus

    public init(modem: ModemStatus) {
        self.modem = modem
    }
}

/// `at`: what the command got on the module's own session.
public struct ControlATResult: Sendable, Codable, Equatable {
    public var modem: ModemStatus
    /// As sent (the daemon's audit log keeps it with secrets masked).
    public var command: String
    /// Its information lines.
    public var lines: [String]
    /// The final result as the module printed it, or what happened instead (a timeout).
    public var final: String
    public var ok: Bool
    /// URCs the module sent while the command ran.
    public var urcs: [String]
    /// The command was one that breaks the supervisor's view (sent with `force`): the module is
    /// being probed afresh.
    public var reprobing: Bool

    public init(
        modem: ModemStatus,
        command: String,
        lines: [String],
        final: String,
        ok: Bool,
        urcs: [String],
        reprobing: Bool
    ) {
        self.modem = modem
        self.command = command
        self.lines = lines
        self.final = final
        self.ok = ok
        self.urcs = urcs
        self.reprobing = reprobing
    }
}

/// `action`: the request was handed to the module's supervisor.
public struct ControlActionResult: Sendable, Codable, Equatable {
    /// The module as it was when the request was handed over.
    public var modem: ModemStatus
    public var action: ModemAction

    public init(modem: ModemStatus, action: ModemAction) {
        self.modem = modem
        self.action = action
    }
}

/// `discovery`: every tty the daemon's discovery has seen, with its decision and the rule behind it.
public struct ControlDiscovery: Sendable, Codable {
    public var entries: [DiscoveryEntry]

    public init(entries: [DiscoveryEntry]) {
        self.entries = entries
    }
}

/// A `urcs` line: one URC of the module.
public struct ControlURC: Sendable, Codable, Equatable {
    /// The module's IMEI, or its port.
    public var modem: String
    public var line: String
    public var at: Date

    public init(modem: String, line: String, at: Date) {
        self.modem = modem
        self.line = line
        self.at = at
    }
}

/// JSON as the protocol writes it: ISO 8601 dates with fractional seconds, sorted keys, no
/// escaped slashes; one object per line.
public enum ControlJSON {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        }
        return encoder
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
            if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "not an ISO 8601 date: \(text)")
            )
        }
        return decoder
    }

    /// `value` as one line (with its `\n`).
    public static func line<T: Encodable>(_ value: T) -> [UInt8] {
        let data = (try? encoder().encode(value)) ?? Data("{}".utf8)
        return Array(data) + [UInt8(ascii: "\n")]
    }
}
