import Logging

/// One log record as journald's fields, and its two encodings: a datagram of the native journal
/// protocol (systemd's "Native Journal Protocol" document), and a stderr line with an `<N>`
/// priority prefix (sd-daemon(3)) for when the socket cannot take it.
///
/// Fields: `PRIORITY` (the syslog level of the swift-log level), `MESSAGE` (the message followed by
/// the metadata as `key=value`, so that `journalctl -u nbgwd` reads like the plain stderr log),
/// `SYSLOG_IDENTIFIER`, `CODE_FILE`, `CODE_LINE`, `CODE_FUNC`, `LOGGER` (the swift-log label), and
/// every metadata key as a field of its own (``fieldName(forMetadataKey:)``: `imei` → `IMEI`,
/// `store.path` → `STORE_PATH`), so that `journalctl -u nbgwd IMEI=864425038511212` finds one
/// module's records.
public struct JournalEntry: Sendable, Equatable {
    /// The fields in order; a name may repeat (journald keeps every value).
    public private(set) var fields: [(name: String, value: [UInt8])]

    /// The longest value kept of the `MESSAGE` field, in bytes. Why 16 KiB: a message with its
    /// metadata is a few hundred bytes; the longest the daemon writes (a failure listing every
    /// problem of a config file) a few kilobytes.
    public static let messageLimit = 16 * 1024
    /// The longest value kept of any other field, in bytes. Why 2 KiB: the longest metadata value
    /// is a failure message, which the modem table itself cuts at 2048 bytes.
    public static let valueLimit = 2 * 1024
    /// The most metadata fields one record carries (the daemon's records have at most ten).
    public static let fieldLimit = 64
    /// journald's limit on a field name.
    static let nameLimit = 64

    /// Names this encoder sets itself; a metadata key mapping onto one of them gets a `META_` prefix.
    static let reservedNames: Set<String> = [
        "MESSAGE", "PRIORITY", "SYSLOG_IDENTIFIER", "CODE_FILE", "CODE_LINE", "CODE_FUNC", "LOGGER",
        "MESSAGE_ID", "SYSLOG_FACILITY", "SYSLOG_PID", "SYSLOG_TIMESTAMP",
    ]

    public static func == (lhs: JournalEntry, rhs: JournalEntry) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    /// The syslog priority of a swift-log level (RFC 5424 §6.2.1: 2 critical … 7 debug).
    public static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    public let priority: Int
    /// The message with its metadata, as `MESSAGE` carries it and the `<N>` line shows it.
    public let text: String

    /// Builds the record.
    ///
    /// - Parameters:
    ///   - metadata: the merged metadata (handler, provider, call); every key becomes a field.
    ///   - identifier: `SYSLOG_IDENTIFIER` (`nbgwd`).
    public init(
        level: Logger.Level,
        message: String,
        metadata: Logger.Metadata,
        label: String,
        identifier: String,
        file: String,
        function: String,
        line: UInt
    ) {
        priority = Self.priority(level)
        let sorted = metadata.sorted { $0.key < $1.key }
        let rendered = sorted.map { "\($0.key)=\($0.value)" }
        text = rendered.isEmpty ? message : message + " " + rendered.joined(separator: " ")
        fields = []
        append("PRIORITY", String(priority))
        append("SYSLOG_IDENTIFIER", identifier)
        append("MESSAGE", text, limit: Self.messageLimit)
        append("CODE_FILE", file)
        append("CODE_LINE", String(line))
        append("CODE_FUNC", function)
        append("LOGGER", label)
        for (key, value) in sorted.prefix(Self.fieldLimit) {
            append(Self.fieldName(forMetadataKey: key), "\(value)")
        }
    }

    private mutating func append(_ name: String, _ value: String, limit: Int = JournalEntry.valueLimit) {
        fields.append((name, Self.truncated(Array(value.utf8), to: limit)))
    }

    /// A metadata key as a journal field name: upper case, every character other than `A`–`Z`,
    /// `0`–`9` and `_` replaced by `_`, leading underscores removed (names starting with `_` are
    /// journald's trusted fields; a client may not set them), `M_` before a leading digit or an
    /// empty name, `META_` before a name this encoder sets itself, at most 64 characters.
    public static func fieldName(forMetadataKey key: String) -> String {
        var name = String(
            String.UnicodeScalarView(
                key.unicodeScalars.map { scalar in
                    switch scalar {
                    case "a"..."z": Unicode.Scalar(scalar.value - 32)!
                    case "A"..."Z", "0"..."9", "_": scalar
                    default: "_"
                    }
                }
            )
        )
        while name.hasPrefix("_") { name.removeFirst() }
        if name.isEmpty || name.first!.isNumber { name = "M_" + name }
        if reservedNames.contains(name) { name = "META_" + name }
        return String(name.prefix(nameLimit))
    }

    /// `bytes`, cut at a UTF-8 character boundary to at most `limit` bytes with `…` at the end
    /// when longer.
    static func truncated(_ bytes: [UInt8], to limit: Int) -> [UInt8] {
        guard bytes.count > limit else { return bytes }
        let ellipsis: [UInt8] = [0xE2, 0x80, 0xA6]
        var end = limit - ellipsis.count
        // Back off continuation bytes (10xxxxxx) so that no character is split.
        while end > 0, bytes[end] & 0xC0 == 0x80 { end -= 1 }
        return Array(bytes[..<end]) + ellipsis
    }

    /// The datagram for journald's native socket: `NAME=value\n` per field, or, for a value
    /// holding a newline, `NAME\n`, its length as a 64-bit little-endian integer, the value and `\n`.
    public var datagram: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.count + 10 })
        for (name, value) in fields {
            bytes.append(contentsOf: name.utf8)
            if value.contains(UInt8(ascii: "\n")) {
                bytes.append(UInt8(ascii: "\n"))
                var length = UInt64(value.count).littleEndian
                withUnsafeBytes(of: &length) { bytes.append(contentsOf: $0) }
            } else {
                bytes.append(UInt8(ascii: "="))
            }
            bytes.append(contentsOf: value)
            bytes.append(UInt8(ascii: "\n"))
        }
        return bytes
    }

    /// The stderr line journald reads when the socket cannot be used: `<N>` and ``text`` with line
    /// breaks shown as `\n` (journald makes a record of every line, and a continuation line would
    /// lose the priority), at most ``messageLimit`` bytes.
    public var line: [UInt8] {
        var bytes = Array("<\(priority)>".utf8)
        for byte in Self.truncated(Array(text.utf8), to: Self.messageLimit) {
            switch byte {
            case UInt8(ascii: "\n"): bytes += Array("\\n".utf8)
            case UInt8(ascii: "\r"): bytes += Array("\\r".utf8)
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }
}
