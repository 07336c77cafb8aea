/// Why an image gave no QR codes: what, where, and what to do.
public struct QRImageError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The file could not be read (missing, unreadable, too large).
        case unreadable
        /// Not a PNG or JPEG, or a damaged one.
        case unsupported
        /// A picture, but no QR code in it that zbar could read.
        case noCode
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
