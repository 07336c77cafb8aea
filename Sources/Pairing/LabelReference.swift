/// A label URL printed on a module (`https://HOST/d/CODE`), to be resolved by the cloud that issued it.
public struct LabelReference: Sendable, Equatable, Hashable {
    /// The URL exactly as scanned (validated: http(s), printable ASCII, size-capped).
    public var url: String
    /// The URL without its last path segment and without query or fragment, e.g. `https://HOST/d/`.
    public var base: String
    /// The last path segment: the label code.
    public var code: String

    public init(url: String, base: String, code: String) {
        self.url = url
        self.base = base
        self.code = code
    }
}
