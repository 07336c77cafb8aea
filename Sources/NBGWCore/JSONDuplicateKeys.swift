import Foundation

/// Finds a key that one JSON object holds twice.
///
/// Why: RFC 8259 §4 leaves what a repeated key means to each parser. Foundation's keeps one of
/// them; a proxy, a WAF or a log pipeline in front of nbgw may keep the other, and then what was
/// checked is not what was bound (`{"qr":"x","qr":"y"}`). So every parser of untrusted JSON (the
/// ingest API's request bodies, the control socket's requests, a QR code's JSON) refuses a
/// document with a repeated key before it decodes it.
///
/// Keys compare as Swift strings once their escapes are decoded: `"qr"` and `"q\u0072"` are the
/// same key, and so are two canonically equivalent spellings (what Swift's dictionaries merge).
/// The scan is iterative (no recursion however deep the nesting) and only looks for repeated
/// keys: a text that is not JSON, or ends before its outermost value does, gives nil (whatever it
/// repeated first), and the real parser then words its own error.
public enum JSONDuplicateKeys {
    /// The path of the first key that an object of `bytes` holds twice (`qr`, `actionData.id`,
    /// `items[2].qr`), or nil when no object repeats a key or `bytes` is not JSON.
    public static func first(in bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var scanner = Scanner(bytes: bytes)
        return scanner.firstDuplicate()
    }

    /// ``first(in:)`` for bytes in an array.
    public static func first(in bytes: [UInt8]) -> String? {
        bytes.withUnsafeBufferPointer { first(in: $0) }
    }

    /// ``first(in:)`` for bytes in `Data`.
    public static func first(in data: Data) -> String? {
        data.withUnsafeBytes { first(in: $0.bindMemory(to: UInt8.self)) }
    }

    /// ``first(in:)`` for a text's UTF-8.
    public static func first(in text: String) -> String? {
        var text = text
        return text.withUTF8 { first(in: $0) }
    }

    private struct Scanner {
        /// An open object or array: the keys seen so far (objects) or the elements so far (arrays),
        /// and how its parent names it in a path.
        struct Container {
            var isObject: Bool
            var label: String
            var keys: Set<String> = []
            var key = ""
            var elements = 0
        }

        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0
        var stack: [Container] = []
        /// The path of the first repeated key, answered once the outermost value has ended.
        var found: String?

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        mutating func firstDuplicate() -> String? {
            // What the scanner expects next: a value, or an object's key.
            var expectingKey = false
            while true {
                skipSpace()
                guard index < bytes.count else { return nil }
                if expectingKey {
                    guard let key = string() else { return nil }
                    if !stack[stack.count - 1].keys.insert(key).inserted, found == nil { found = path(adding: key) }
                    stack[stack.count - 1].key = key
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                    index += 1
                    expectingKey = false
                    continue
                }
                // A value.
                switch bytes[index] {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    let isObject = bytes[index] == UInt8(ascii: "{")
                    index += 1
                    stack.append(Container(isObject: isObject, label: childLabel()))
                    skipSpace()
                    guard index < bytes.count else { return nil }
                    if bytes[index] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                        index += 1
                        stack.removeLast()
                        if stack.isEmpty { return found }
                    } else {
                        expectingKey = isObject
                        continue
                    }
                case UInt8(ascii: "\""):
                    guard skipString() else { return nil }
                default:
                    // A number, true, false or null: whatever runs up to a delimiter (the parser checks it).
                    let start = index
                    while index < bytes.count, !isDelimiter(bytes[index]) { index += 1 }
                    guard index > start else { return nil }
                }
                // After a value: the end of the document, or `,` / the container's end.
                while true {
                    skipSpace()
                    guard let top = stack.last else { return nil }
                    guard index < bytes.count else { return nil }
                    let byte = bytes[index]
                    index += 1
                    if byte == UInt8(ascii: ",") {
                        if top.isObject {
                            expectingKey = true
                        } else {
                            stack[stack.count - 1].elements += 1
                        }
                        break
                    }
                    guard byte == (top.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { return nil }
                    stack.removeLast()
                    if stack.isEmpty { return found }
                }
            }
        }

        /// How the value about to be read is named in a path: its key, or its index.
        func childLabel() -> String {
            guard let parent = stack.last else { return "" }
            return parent.isObject ? parent.key : "[\(parent.elements)]"
        }

        func path(adding key: String) -> String {
            var path = ""
            for container in stack.dropFirst() {
                if !container.label.hasPrefix("["), !path.isEmpty { path += "." }
                path += container.label
            }
            return path.isEmpty ? key : path + "." + key
        }

        func isDelimiter(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: ",") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}")
                || byte == UInt8(ascii: ":") || byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
        }

        mutating func skipSpace() {
            while index < bytes.count,
                bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09
            {
                index += 1
            }
        }

        /// Past a string value (escapes skipped, not decoded); false when it does not end.
        mutating func skipString() -> Bool {
            index += 1
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    index += 1
                    return true
                case UInt8(ascii: "\\"): index += 2
                default: index += 1
                }
            }
            return false
        }

        /// A key, its escapes decoded; nil when it is not a well-formed JSON string of valid UTF-8.
        mutating func string() -> String? {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
            index += 1
            var text: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(validating: text, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { return nil }
                    let escaped = bytes[index]
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escaped)
                    case UInt8(ascii: "b"): text.append(0x08)
                    case UInt8(ascii: "f"): text.append(0x0C)
                    case UInt8(ascii: "n"): text.append(0x0A)
                    case UInt8(ascii: "r"): text.append(0x0D)
                    case UInt8(ascii: "t"): text.append(0x09)
                    case UInt8(ascii: "u"):
                        guard var value = hex4() else { return nil }
                        if (0xD800...0xDBFF).contains(value) {
                            // A surrogate pair: the low half must follow as another \u escape.
                            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                                bytes[index + 1] == UInt8(ascii: "u")
                            else { return nil }
                            index += 2
                            guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
                            value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let scalar = Unicode.Scalar(value) else { return nil }
                        text.append(contentsOf: Array(String(Character(scalar)).utf8))
                    default: return nil
                    }
                case 0..<0x20:
                    return nil
                default:
                    text.append(byte)
                }
            }
            return nil
        }

        mutating func hex4() -> UInt32? {
            guard index + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: return nil
                }
                value = value << 4 | UInt32(digit)
                index += 1
            }
            return value
        }
    }
}
