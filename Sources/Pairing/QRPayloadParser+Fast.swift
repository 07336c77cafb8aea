import DeviceIdentity

extension QRPayloadParser {
    /// The parse-result JSON's tokens before the device id and after it, in the order the seed
    /// writes them; JSON whitespace may stand between any two (``fastJSON(_:)``).
    private static let jsonTokensBeforeID: [[UInt8]] = [
        "{", #""actionName""#, ":", #""device_net_conn_bind_nb""#, ",", #""actionData""#, ":", "{", #""id""#, ":",
    ].map { Array($0.utf8) }
    private static let jsonTokensAfterID: [[UInt8]] = ["}", "}"].map { Array($0.utf8) }
    private static let httpsScheme = Array("https://".utf8)
    private static let httpScheme = Array("http://".utf8)

    /// The shapes a CSV batch meets a million times, answered without Foundation: label URLs
    /// without query, fragment, user info or escapes, and the parse-result JSON, compact or with
    /// JSON whitespace between its tokens (as `json.dumps` writes it, or pretty-printed).
    /// Returns nil for anything else (including anything invalid), which then goes through
    /// ``fullParse(_:)``; tests check both give the same answer.
    ///
    /// Why: URLComponents and JSONSerialization cost microseconds each, which was most of a
    /// batch row's time. Why whitespace too: JSON written by common tools has a space after `:`
    /// and `,`, and such rows bound at 116 k rows/s against 268 k compact (tools/bench-csv.sh).
    static func fastParse(_ raw: String) -> QRPayload? {
        var utf8 = raw
        return utf8.withUTF8 { bytes -> QRPayload? in
            guard bytes.count >= 8, bytes.count <= BindingRules.maximumPayloadBytes else { return nil }
            if bytes[0] == UInt8(ascii: "h") {
                // Printable ASCII without spaces: nothing to trim, no control characters.
                guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
                return fastLabel(bytes, raw: raw)
            }
            return fastJSON(bytes)
        }
    }

    /// The parse-result JSON as a run of fixed tokens around the device id, with JSON whitespace
    /// (space, tab, CR, LF: what both ``fullParse(_:)``'s trimming and JSON allow) before, between
    /// and after them. Printable ASCII otherwise; an id with an escape, a key more or keys in
    /// another order: nil, for the full parser.
    private static func fastJSON(_ bytes: UnsafeBufferPointer<UInt8>) -> QRPayload? {
        guard bytes.allSatisfy({ ($0 >= 0x20 && $0 < 0x7F) || isJSONWhitespace($0) }) else { return nil }
        var index = 0
        for token in jsonTokensBeforeID {
            guard take(token, from: bytes, at: &index) else { return nil }
        }
        skipWhitespace(bytes, &index)
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        let idStart = index + 1
        guard let idEnd = bytes[idStart...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        let id = UnsafeBufferPointer(rebasing: bytes[idStart..<idEnd])
        // Within a JSON string: no escape, and no tab, CR or LF (raw, they make the JSON invalid).
        guard !id.contains(UInt8(ascii: "\\")), id.allSatisfy({ $0 >= 0x20 }) else { return nil }
        index = idEnd + 1
        for token in jsonTokensAfterID {
            guard take(token, from: bytes, at: &index) else { return nil }
        }
        skipWhitespace(bytes, &index)
        guard index == bytes.count, let deviceID = try? DeviceID(String(decoding: id, as: UTF8.self)) else {
            return nil
        }
        return .nbBind(NBBindPayload(deviceID: deviceID, origin: .json))
    }

    /// Skips JSON whitespace, then `token` if it comes next: whether it did.
    private static func take(_ token: [UInt8], from bytes: UnsafeBufferPointer<UInt8>, at index: inout Int) -> Bool {
        skipWhitespace(bytes, &index)
        guard bytes.count - index >= token.count else { return false }
        for (offset, byte) in token.enumerated() where bytes[index + offset] != byte { return false }
        index += token.count
        return true
    }

    private static func skipWhitespace(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int) {
        while index < bytes.count, isJSONWhitespace(bytes[index]) { index += 1 }
    }

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// `raw`: the text `bytes` are the UTF-8 of, kept as the label's URL (a copy per row otherwise).
    private static func fastLabel(_ bytes: UnsafeBufferPointer<UInt8>, raw: String) -> QRPayload? {
        let schemeLength: Int
        if bytes.starts(with: httpsScheme) {
            schemeLength = 8
        } else if bytes.starts(with: httpScheme) {
            schemeLength = 7
        } else {
            return nil
        }
        var index = schemeLength
        // Host: lower-case letters, digits, dots and dashes, then an optional :port.
        let hostStart = index
        while index < bytes.count, isHostByte(bytes[index]) { index += 1 }
        guard index > hostStart else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
            index += 1
            let portStart = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
            guard index > portStart, index - portStart <= 5, bytes[portStart] != 0x30 else { return nil }
        }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "/") else { return nil }
        // Path: segments of unreserved characters only (so no normalisation could change them).
        var lastSegmentStart = index + 1
        var position = index + 1
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "/") {
                guard position > lastSegmentStart else { return nil }  // empty segment: let the full parser decide
                lastSegmentStart = position + 1
            } else if !isUnreserved(byte) {
                return nil
            }
            position += 1
        }
        let code = UnsafeBufferPointer(rebasing: bytes[lastSegmentStart...])
        guard (4...64).contains(code.count), code.allSatisfy(isLabelByte) else { return nil }
        let url = raw
        let base = String(decoding: UnsafeBufferPointer(rebasing: bytes[..<lastSegmentStart]), as: UTF8.self)
        return .label(LabelReference(url: url, base: base, code: String(decoding: code, as: UTF8.self)))
    }

    private static func isHostByte(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2E || byte == 0x2D
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
            || byte == 0x2E || byte == 0x2D || byte == 0x5F || byte == 0x7E
    }

    private static func isLabelByte(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
            || byte == 0x2D || byte == 0x5F
    }
}
