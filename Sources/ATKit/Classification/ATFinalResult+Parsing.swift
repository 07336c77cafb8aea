extension ATFinalResult {
    /// Parses a final result code, or returns nil when `line` is not one.
    ///
    /// `line` should be trimmed. Matching is exact and case-sensitive, as V.250 result codes are
    /// upper case; only the space after an error prefix's colon is optional, because Hi2115
    /// firmware (BC95 family) prints `+CME ERROR:50`.
    public init?(line: String) {
        switch line {
        case "OK": self = .ok
        case "ERROR": self = .error
        case "NO CARRIER": self = .noCarrier
        case "BUSY": self = .busy
        case "NO ANSWER": self = .noAnswer
        case "NO DIALTONE": self = .noDialtone
        case "SEND OK": self = .sendOK
        case "SEND FAIL": self = .sendFail
        case "CONNECT": self = .connect(nil)
        default:
            if line.hasPrefix("CONNECT ") {
                let text = line.dropFirst("CONNECT ".count).trimmingSpaces()
                self = .connect(text.isEmpty ? nil : text)
            } else if let (code, text) = Self.errorDetail(line, prefix: "+CME ERROR:") {
                self = .cmeError(code: code ?? text.flatMap(ATCMEErrorCatalogue.code(forText:)), text: text)
            } else if let (code, text) = Self.errorDetail(line, prefix: "+CMS ERROR:") {
                self = .cmsError(code: code, text: text)
            } else if let (code, text) = Self.errorDetail(line, prefix: "+CIS ERROR:") {
                self = .cisError(code: code, text: text)
            } else {
                return nil
            }
        }
    }

    /// `(code, nil)` for a numeric detail, `(nil, text)` for a verbose one, `(nil, nil)` if empty.
    private static func errorDetail(_ line: String, prefix: String) -> (Int?, String?)? {
        guard line.hasPrefix(prefix) else { return nil }
        var detail = line.dropFirst(prefix.count).trimmingSpaces()
        if detail.count >= 2, detail.hasPrefix("\""), detail.hasSuffix("\"") {
            detail = String(detail.dropFirst().dropLast())
        }
        if detail.isEmpty { return (nil, nil) }
        if let code = Int(detail) { return (code, nil) }
        return (nil, detail)
    }
}
