/// One line of modem output, without its terminator.
///
/// Control bytes are removed and invalid UTF-8 is replaced by U+FFFD, so ``text`` is always valid
/// and printable; surrounding spaces are kept (the classifier trims them).
public struct ATLine: Sendable, Hashable, CustomStringConvertible {
    /// The decoded text.
    public var text: String
    /// How many bytes beyond ``ATLineFramer/maxLineLength`` were discarded; 0 for a complete line.
    public var truncatedByteCount: Int

    public init(_ text: String, truncatedByteCount: Int = 0) {
        self.text = text
        self.truncatedByteCount = truncatedByteCount
    }

    /// Whether the line was longer than the framer allows and has been cut.
    public var isTruncated: Bool { truncatedByteCount > 0 }

    public var description: String {
        isTruncated ? "\(text)… (+\(truncatedByteCount) bytes cut)" : text
    }
}
