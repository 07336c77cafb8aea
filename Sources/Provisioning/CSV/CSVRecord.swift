/// One CSV record (RFC 4180), with where it is in the file.
public struct CSVRecord: Sendable, Equatable {
    /// The fields, decoded as UTF-8. Empty when ``problem`` is set.
    public var fields: [String]
    /// The physical line (1-based) the record starts on.
    public var line: Int
    /// Byte offset of the record's first byte.
    public var startOffset: Int64
    /// Byte offset just past the record's terminator: where the next record starts.
    public var endOffset: Int64
    /// The physical line the next record starts on.
    public var nextLine: Int
    /// Why the record could not be read; the reader has already resynchronised past it.
    public var problem: String?
}
