/// An ordered set of ``ATURCPattern``s: which lines are unsolicited result codes.
///
/// Patterns are tried longest key first, so `+CGEV` and a hypothetical `+CGEVX` can coexist and
/// the result never depends on insertion or hashing order.
public struct ATURCTable: Sendable, Hashable {
    /// The patterns, longest key first (ties keep insertion order).
    public private(set) var patterns: [ATURCPattern]

    public init(_ patterns: [ATURCPattern] = []) {
        self.patterns = []
        add(patterns)
    }

    /// Adds patterns; a pattern with the same ``ATURCPattern/match`` as an existing one replaces it.
    public mutating func add(_ newPatterns: [ATURCPattern]) {
        for pattern in newPatterns {
            patterns.removeAll { $0.match == pattern.match }
            patterns.append(pattern)
        }
        // Stable sort: Swift's sort is not guaranteed stable, so sort by (length, original index).
        patterns = patterns.enumerated()
            .sorted { lhs, rhs in
                lhs.element.key.utf8.count != rhs.element.key.utf8.count
                    ? lhs.element.key.utf8.count > rhs.element.key.utf8.count
                    : lhs.offset < rhs.offset
            }
            .map(\.element)
    }

    /// A copy with `newPatterns` added (see ``add(_:)``).
    public func adding(_ newPatterns: [ATURCPattern]) -> ATURCTable {
        var copy = self
        copy.add(newPatterns)
        return copy
    }

    /// The first pattern matching the trimmed `line`.
    public func match(_ line: String) -> ATURCPattern? {
        patterns.first { $0.matches(line) }
    }

    /// The ``ATURCPattern/Match/name(_:)`` pattern for `name`, if any.
    public func pattern(named name: String) -> ATURCPattern? {
        patterns.first { $0.match == .name(name) }
    }
}
