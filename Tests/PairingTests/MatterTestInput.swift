import Testing

@testable import Pairing

/// A test argument holding untrusted text; test reports show it escaped and shortened, so control characters,
/// bidi overrides and terminal escape sequences in the vectors never reach the console raw.
struct MatterTestInput: Sendable, ExpressibleByStringLiteral, CustomTestStringConvertible {
    var text: String

    init(_ text: String) { self.text = text }

    init(stringLiteral value: String) { text = value }

    var testDescription: String { "\"" + MatterUntrustedText.escaped(text, limit: 40) + "\"" }
}
