import NBGWCore

/// The gateway's owner in a Kii app: the user or group every thing this gateway onboards belongs
/// to (`[cloud] owner`, `NBGW_KII_OWNER`, written `USER:<id>` or `GROUP:<id>`).
///
/// Kii names owners by typed id, `user:<userID>` or `group:<groupID>` (docs/cloud.md, "Kii
/// Thing-IF"); the prefix is read without regard to case and sent in lower case.
public struct KiiOwner: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable {
        case user
        case group
    }

    public var kind: Kind
    /// The Kii user or group id.
    public var id: String

    public init(kind: Kind, id: String) throws(NBGWError) {
        guard KiiOwner.isID(id) else {
            throw NBGWError(
                .invalidArgument,
                "Kii \(kind.rawValue) id \(id.escapedForDisplay()) must be 1 to 128 characters of A-Z, a-z, 0-9, "
                    + "'-', '_' or '.'"
            )
        }
        self.kind = kind
        self.id = id
    }

    /// Reads `USER:<id>` or `GROUP:<id>` (either case).
    ///
    /// - Parameter name: the variable or key it came from, for the message.
    public init(parsing text: String, name: String) throws(NBGWError) {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let kind = Kind(rawValue: parts[0].lowercased()) else {
            throw NBGWError(
                .invalidArgument,
                "\(name) \(text.escapedForDisplay()) must be USER:<Kii user id> or GROUP:<Kii group id>: the owner "
                    + "every onboarded thing belongs to"
            )
        }
        try self.init(kind: kind, id: String(parts[1]))
    }

    /// Kii's typed id, as the onboarding's `owner` field carries it: `user:<id>`.
    public var typedID: String { "\(kind.rawValue):\(id)" }

    public var description: String { "\(kind.rawValue.uppercased()):\(id)" }

    /// Ids travel in URL paths: only characters that need no escaping there.
    static func isID(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 128
            && text.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
            }
    }
}
