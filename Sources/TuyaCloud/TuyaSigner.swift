import Crypto
import Foundation

/// Signs cloud OpenAPI requests exactly as Tuya publishes it (the "current" algorithm for projects
/// created after 2021-06-30; pairing-anchors §1.4, Tuya "Sign Requests"):
///
/// ```
/// stringToSign = METHOD + "\n" + hex(SHA256(body bytes)) + "\n" + signedHeaders + "\n" + url
/// token calls:    str = client_id + t + nonce + stringToSign
/// business calls: str = client_id + access_token + t + nonce + stringToSign
/// sign = UPPER(hex(HMAC-SHA256(key: secret, message: str)))
/// ```
///
/// `signedHeaders` is `name:value\n` for every header named in `Signature-Headers` (in that
/// order), and `url` is the path plus `?` and the query items sorted by key. The secret is kept as
/// bytes and never printed: ``description`` and the mirror redact it.
public struct TuyaSigner: Sendable, CustomStringConvertible, CustomReflectable {
    /// The value of the `sign_method` header.
    public static let signMethod = "HMAC-SHA256"
    /// SHA-256 of zero bytes: the content hash of every request without a body (GET, DELETE).
    public static let emptyBodySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// The project's Access ID (`client_id` header).
    public let clientID: String
    private let secret: [UInt8]

    public init(clientID: String, secret: String) {
        self.clientID = clientID
        self.secret = Array(secret.utf8)
    }

    public var description: String { "TuyaSigner(clientID: \(clientID), secret: <redacted>)" }

    public var customMirror: Mirror { Mirror(self, children: ["clientID": clientID, "secret": "<redacted>"]) }

    // MARK: The string to sign

    /// The `url` part of the string to sign: `path`, then `?` and `key=value` pairs joined by `&`,
    /// sorted by key (a stable sort, so repeated keys keep their order). No `?` without a query.
    ///
    /// Values are used as given (not percent-encoded): the sender must put the same characters on
    /// the wire, which ``CloudHTTPRequest`` guarantees by only sending unreserved characters.
    public static func canonicalURL(path: String, query: [(name: String, value: String)]) -> String {
        guard !query.isEmpty else { return path }
        let sorted = query.enumerated().sorted { lhs, rhs in
            lhs.element.name == rhs.element.name ? lhs.offset < rhs.offset : lhs.element.name < rhs.element.name
        }
        return path + "?" + sorted.map { "\($0.element.name)=\($0.element.value)" }.joined(separator: "&")
    }

    /// Lower-case hex SHA-256 of the exact body bytes put on the wire.
    public static func contentSHA256(_ body: [UInt8]) -> String {
        hex(SHA256.hash(data: body), uppercase: false)
    }

    /// The headers part of the string to sign: `name:value\n` per signed header, in order.
    public static func signedHeaderLines(_ headers: [(name: String, value: String)]) -> String {
        headers.map { "\($0.name):\($0.value)\n" }.joined()
    }

    /// `METHOD\nSHA256(body)\nheaders\nurl` (pairing-anchors §1.4).
    public static func stringToSign(
        method: String,
        body: [UInt8],
        signedHeaders: [(name: String, value: String)],
        url: String
    ) -> String {
        method.uppercased() + "\n" + contentSHA256(body) + "\n" + signedHeaderLines(signedHeaders) + "\n" + url
    }

    // MARK: Signing

    /// The `sign` header. Token calls (`/v1.0/token…`) pass `accessToken: nil` and sign
    /// `client_id + t + nonce + stringToSign`; business calls sign
    /// `client_id + access_token + t + nonce + stringToSign`.
    public func sign(accessToken: String?, t: String, nonce: String, stringToSign: String) -> String {
        let message = clientID + (accessToken ?? "") + t + nonce + stringToSign
        let mac = HMAC<SHA256>.authenticationCode(for: Array(message.utf8), using: SymmetricKey(data: secret))
        return TuyaSigner.hex(mac, uppercase: true)
    }

    /// Checks a received `sign` header in constant time (case-insensitive hex).
    public func isValid(
        sign received: String,
        accessToken: String?,
        t: String,
        nonce: String,
        stringToSign: String
    ) -> Bool {
        let expected = Array(sign(accessToken: accessToken, t: t, nonce: nonce, stringToSign: stringToSign).utf8)
        let given = Array(received.uppercased().utf8)
        guard expected.count == given.count else { return false }
        var difference: UInt8 = 0
        for index in expected.indices {
            difference |= expected[index] ^ given[index]
        }
        return difference == 0
    }

    /// Every header a signed request carries: `client_id`, `sign`, `sign_method`, `t`, `nonce`,
    /// `access_token` (business calls only), and `Signature-Headers` plus the headers it names when
    /// `extraSignedHeaders` is not empty.
    public func headers(
        method: String,
        url: String,
        body: [UInt8],
        accessToken: String?,
        t: Int64,
        nonce: String,
        extraSignedHeaders: [(name: String, value: String)] = []
    ) -> [(name: String, value: String)] {
        let toSign = TuyaSigner.stringToSign(method: method, body: body, signedHeaders: extraSignedHeaders, url: url)
        let timestamp = String(t)
        var headers: [(name: String, value: String)] = [
            ("client_id", clientID),
            ("sign", sign(accessToken: accessToken, t: timestamp, nonce: nonce, stringToSign: toSign)),
            ("sign_method", TuyaSigner.signMethod),
            ("t", timestamp),
            ("nonce", nonce),
        ]
        if let accessToken {
            headers.append(("access_token", accessToken))
        }
        if !extraSignedHeaders.isEmpty {
            headers.append(("Signature-Headers", extraSignedHeaders.map(\.name).joined(separator: ":")))
            headers.append(contentsOf: extraSignedHeaders)
        }
        return headers
    }

    /// A fresh 32-hex-digit nonce from the system CSPRNG.
    public static func makeNonce() -> String {
        var generator = SystemRandomNumberGenerator()
        return hex((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }, uppercase: false)
    }

    static func hex<Bytes: Sequence>(_ bytes: Bytes, uppercase: Bool) -> String where Bytes.Element == UInt8 {
        let digits = Array((uppercase ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
