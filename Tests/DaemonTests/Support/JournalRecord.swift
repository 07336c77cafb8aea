/// One datagram of journald's native protocol, read as journald reads it (systemd's "Native
/// Journal Protocol" document): `NAME=value\n`, or `NAME\n` + 64-bit little-endian length +
/// value + `\n`. Written from the document, not from the daemon's encoder, so that the two check
/// each other.
struct JournalRecord: CustomStringConvertible {
    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    /// Every field in order (a name may repeat).
    var fields: [(name: String, value: [UInt8])]

    init(datagram bytes: [UInt8]) throws {
        fields = []
        var index = 0
        while index < bytes.count {
            guard let end = bytes[index...].firstIndex(where: { $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: "\n") })
            else { throw Malformed(description: "field at byte \(index) has neither '=' nor a newline") }
            let name = String(decoding: bytes[index..<end], as: UTF8.self)
            try Self.check(name)
            if bytes[end] == UInt8(ascii: "=") {
                guard let newline = bytes[(end + 1)...].firstIndex(of: UInt8(ascii: "\n")) else {
                    throw Malformed(description: "\(name): the value does not end with a newline")
                }
                fields.append((name, Array(bytes[(end + 1)..<newline])))
                index = newline + 1
            } else {
                let lengthStart = end + 1
                guard lengthStart + 8 <= bytes.count else { throw Malformed(description: "\(name): no length") }
                var length: UInt64 = 0
                for (shift, byte) in bytes[lengthStart..<(lengthStart + 8)].enumerated() {
                    length |= UInt64(byte) << (8 * UInt64(shift))
                }
                let valueStart = lengthStart + 8
                let valueEnd = valueStart + Int(length)
                guard valueEnd < bytes.count, bytes[valueEnd] == UInt8(ascii: "\n") else {
                    throw Malformed(
                        description: "\(name): binary value of \(length) bytes is not followed by a newline"
                    )
                }
                fields.append((name, Array(bytes[valueStart..<valueEnd])))
                index = valueEnd + 1
            }
        }
    }

    /// journald's rule for a name a client may set: `A`–`Z`, `0`–`9`, `_`, not starting with `_`
    /// or a digit, at most 64 characters.
    static func check(_ name: String) throws {
        guard !name.isEmpty, name.utf8.count <= 64,
            name.utf8.allSatisfy({ (65...90).contains($0) || (48...57).contains($0) || $0 == 95 }),
            let first = name.utf8.first, first != 95, !(48...57).contains(first)
        else { throw Malformed(description: "invalid field name \(name.debugDescription)") }
    }

    /// The first value of `name`, as text.
    subscript(_ name: String) -> String? {
        fields.first { $0.name == name }.map { String(decoding: $0.value, as: UTF8.self) }
    }

    var description: String {
        fields.map { "\($0.name)=\(String(decoding: $0.value, as: UTF8.self))" }.joined(separator: " | ")
    }
}
