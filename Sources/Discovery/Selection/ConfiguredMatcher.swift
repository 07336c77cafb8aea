/// One `[discovery] probe` or `ignore` entry: the text as written, the matcher read from it, and
/// where it was written.
public struct ConfiguredMatcher: Sendable, Hashable {
    /// The entry as written in the file (`"10c4:ea60"`).
    public var text: String
    public var matcher: PortMatcher
    public var location: ConfigLocation

    public init(text: String, matcher: PortMatcher, location: ConfigLocation) {
        self.text = text
        self.matcher = matcher
        self.location = location
    }

    /// Reads `text` (``PortMatcher/init(parsing:)``).
    public init(parsing text: String, location: ConfigLocation) throws(PortMatcherError) {
        self.init(text: text, matcher: try PortMatcher(parsing: text), location: location)
    }
}
