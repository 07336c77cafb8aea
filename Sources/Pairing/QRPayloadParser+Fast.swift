import DeviceIdentity

extension QRPayloadParser {
    private static let canonicalJSONPrefix = Array(
        #"{"actionName":"device_net_conn_bind_nb","actionData":{"id":""#.utf8
    )
    private static let canonicalJSONSuffix = Array(#""}}"#.utf8)
    private static let httpsScheme = Array("https://".utf8)
    private static let httpScheme = Array("http://".utf8)

    /// The shapes a CSV batch meets a million times, answered without Foundation: label URLs
    /// without query, fragment, user info or escapes, and the canonical parse-result JSON.
    /// Returns nil for anything else (including anything invalid), which then goes through
    /// ``fullParse(_:)``; tests check both give the same answer.
    ///
    /// Why: URLComponents and JSONSerialization cost microseconds each, which was most of a
    /// batch row's time.
    static func fastParse(_ raw: String) -> QRPayload? {
        var utf8 = raw
        return utf8.withUTF8 { bytes -> QRPayload? in
            // Printable ASCII without spaces: nothing to trim, no control characters.
            guard bytes.count >= 8, bytes.count <= BindingRules.maximumPayloadBytes,
                bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
            else { return nil }
            if bytes[0] == UInt8(ascii: "{") { return fastJSON(bytes) }
            if bytes[0] == UInt8(ascii: "h") { return fastLabel(bytes, raw: raw) }
            return nil
        }
    }

    private static func fastJSON(_ bytes: UnsafeBufferPointer<UInt8>) -> QRPayload? {
        let prefix = canonicalJSONPrefix
        let suffix = canonicalJSONSuffix
        guard bytes.count > prefix.count + suffix.count, bytes.starts(with: prefix),
            bytes.suffix(suffix.count).elementsEqual(suffix)
        else { return nil }
        let id = UnsafeBufferPointer(rebasing: bytes[prefix.count..<(bytes.count - suffix.count)])
        guard !id.contains(UInt8(ascii: "\"")), !id.contains(UInt8(ascii: "\\")),
            let deviceID = try? DeviceID(String(decoding: id, as: UTF8.self))
        else { return nil }
        return .nbBind(NBBindPayload(deviceID: deviceID, origin: .json))
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
