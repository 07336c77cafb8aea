/// A `[discovery] probe` or `ignore` entry that is not a port matcher: the entry, what is wrong, and
/// the forms an entry may take (``PortMatcher/forms``).
public struct PortMatcherError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The entry as written.
    public var entry: String
    /// What is wrong with it.
    public var problem: String

    public init(_ entry: String, _ problem: String) {
        self.entry = entry
        self.problem = problem
    }

    /// `"10c4:ea6" is not a port matcher: USB vendor and product IDs are 4 hex digits each, …; write …`.
    public var description: String {
        "\(String(reflecting: entry)) is not a port matcher: \(problem); write \(PortMatcher.forms)"
    }
}
