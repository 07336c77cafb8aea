extension StringProtocol {
    /// Whether `needle` occurs in the string, with ASCII letters compared case-insensitively and
    /// every other byte exactly. Modules answer `AT+CGMI` / `AT+CGMM` in ASCII (3GPP TS 27.007
    /// §5.1, §5.2), so this is all identification needs. Why not Foundation's
    /// `localizedCaseInsensitiveContains`: it goes through ICU with the process's locale, loading
    /// ICU's code and tables into the daemon for a byte comparison, and its answer could change
    /// with the locale (a Turkish dotless `i`).
    func containsIgnoringASCIICase(_ needle: some StringProtocol) -> Bool {
        let haystack = Array(utf8)
        let pattern = Array(needle.utf8)
        guard !pattern.isEmpty else { return true }
        guard pattern.count <= haystack.count else { return false }
        @inline(__always) func folded(_ byte: UInt8) -> UInt8 {
            (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
        }
        let foldedPattern = pattern.map(folded)
        for start in 0...(haystack.count - pattern.count) {
            var index = 0
            while index < pattern.count, folded(haystack[start + index]) == foldedPattern[index] {
                index += 1
            }
            if index == pattern.count { return true }
        }
        return false
    }
}
