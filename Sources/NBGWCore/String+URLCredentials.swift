extension String {
    /// A configured URL as a message may show it: its user info (`user:password@`) replaced by
    /// `***@`, then escaped and cut as ``escapedForDisplay(limit:)`` does.
    ///
    /// Why: a cloud URL written `https://user:password@host` is refused, and the refusal used to
    /// echo the password to the terminal and the journal (security review F9). Whatever sits
    /// between `://` (or the start, without a scheme) and the last `@` is hidden, the path and query
    /// included when an `@` follows them: a password may hold `/`, `?` or `#`, and a message loses
    /// little by showing less of a URL nbgw refused anyway.
    public func urlForDisplay(limit: Int = 64) -> String {
        redactingURLUserInfo().escapedForDisplay(limit: limit)
    }

    /// The text with what could be a URL's user info replaced by `***` (see ``urlForDisplay(limit:)``).
    public func redactingURLUserInfo() -> String {
        guard let at = lastIndex(of: "@") else { return self }
        var start = startIndex
        if let scheme = firstRange(of: "://"), scheme.upperBound <= at { start = scheme.upperBound }
        return String(self[..<start]) + "***" + String(self[at...])
    }
}
