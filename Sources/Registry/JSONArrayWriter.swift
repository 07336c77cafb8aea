/// Appends JSON numbers and strings to a byte buffer (the batch's json_each payloads), without
/// Foundation: the values are ids, IMEIs and names, escaped per RFC 8259 §7.
struct JSONArrayWriter {
    var bytes: [UInt8]
    private var needsComma = false

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private mutating func separator() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
    }

    mutating func number(_ value: Int64) {
        separator()
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func string(_ value: String) {
        separator()
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [
                    0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)],
                ])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
