extension StringProtocol {
    /// The text without leading and trailing spaces and tabs (the only whitespace left in a framed
    /// line; CR and LF were consumed by the framer).
    func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[start...end])
    }
}
