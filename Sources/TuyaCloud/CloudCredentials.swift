import NBGWCore

/// The cloud project's Access ID and Access Secret (Tuya: `client_id` and secret; pairing-anchors §1.4).
///
/// They come from the environment or the configuration file, never from the command line, and
/// never appear in logs or messages: every textual form (`description`, `debugDescription`,
/// `dump`) shows the client id and `<redacted>` for the secret.
public struct CloudCredentials: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    public let clientID: String
    public let secret: String

    /// Validates the shapes: a client id of 1–64 letters and digits, a secret of 8–128 printable
    /// ASCII characters without spaces (Tuya issues 20 and 32 characters).
    public init(clientID: String, secret: String) throws(NBGWError) {
        guard (1...64).contains(clientID.utf8.count),
            clientID.utf8.allSatisfy({ CloudCredentials.isAlphanumeric($0) || $0 == UInt8(ascii: "_") })
        else {
            throw NBGWError(
                .invalidArgument,
                "cloud client id \(clientID.escapedForDisplay()) must be 1 to 64 letters or digits; "
                    + "copy the Access ID from the cloud project into NBGW_CLOUD_CLIENT_ID or the config file"
            )
        }
        guard (8...128).contains(secret.utf8.count), secret.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            // Never echo the secret, not even escaped: say only what is wrong with it.
            throw NBGWError(
                .invalidArgument,
                "cloud secret for client id \(clientID) must be 8 to 128 printable characters without spaces "
                    + "(it has \(secret.utf8.count) bytes); copy the Access Secret into NBGW_CLOUD_SECRET or the "
                    + "config file"
            )
        }
        self.clientID = clientID
        self.secret = secret
    }

    public var description: String { "CloudCredentials(clientID: \(clientID), secret: <redacted>)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["clientID": clientID, "secret": "<redacted>"]) }

    /// The signer for these credentials.
    public var signer: TuyaSigner { TuyaSigner(clientID: clientID, secret: secret) }

    static func isAlphanumeric(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: false
        }
    }
}
