import Cloud
import Foundation
import NBGWCore

/// Everything ``KiiCloud`` needs to talk to one Kii app: the site, the app, the gateway's owner
/// and its token, and how patiently. Build it with
/// ``resolve(url:settings:environment:)`` (the environment over the config file). The description
/// never contains the owner token.
public struct KiiConfiguration: Sendable, Equatable, CustomStringConvertible {
    /// Where labels point unless configured otherwise (a reserved `.invalid` host: a label is an
    /// identifier for the gateway's store, never fetched).
    public static let defaultLabelBase = "https://label.nbgw-kii.invalid/t/"

    /// The Kii site, scheme and host (and port), no trailing slash: `https://api-jp.kii.com`, or
    /// the emulator's `http://127.0.0.1:8788`.
    public let site: String
    /// The Kii app (`{appID}` in every path).
    public let appID: String
    /// Sent as `X-Kii-AppKey` when set (Kii's SDKs send it; Kii treats it as an arbitrary value,
    /// access is decided by tokens).
    public var appKey: String?
    /// The user or group every onboarded thing belongs to.
    public let owner: KiiOwner
    /// A Kii access token of the owner user (or of a member of the owner group): onboarding, user
    /// look-ups and reads go with it. Never printed or logged.
    let ownerToken: String
    public var connectTimeout: Duration
    /// How long one request may take until its response head (per attempt).
    public var requestTimeout: Duration
    public var retryPolicy: RetryPolicy
    /// The URL prefix of the labels printed for modules onboarded here (`labelBase + IMEI`).
    public var labelBase: String
    /// Larger response bodies are refused (a misconfigured URL pointing at a download).
    public var maximumResponseBytes: Int

    /// - Throws: `INVALID_ARGUMENT` when the site is not `https://HOST[:PORT]` (plain `http` only
    ///   for a loopback host: tokens must not cross a network in clear), or the app id or token
    ///   is malformed.
    public init(
        site: String,
        appID: String,
        appKey: String? = nil,
        owner: KiiOwner,
        ownerToken: String,
        connectTimeout: Duration = .seconds(5),
        requestTimeout: Duration = .seconds(15),
        retryPolicy: RetryPolicy = .standard,
        labelBase: String = KiiConfiguration.defaultLabelBase
    ) throws(NBGWError) {
        let (site, pathAppID) = try KiiConfiguration.parseSite(site)
        if let pathAppID, pathAppID != appID {
            throw NBGWError(
                .invalidArgument,
                "the Kii URL names app \(pathAppID.escapedForDisplay()) but the app id is "
                    + "\(appID.escapedForDisplay()); keep one"
            )
        }
        guard KiiConfiguration.isAppID(appID) else {
            throw NBGWError(
                .invalidArgument,
                "Kii app id \(appID.escapedForDisplay()) must be 1 to 64 characters of A-Z, a-z, 0-9, '-' or '_' "
                    + "(the AppID of the Kii developer portal)"
            )
        }
        guard KiiConfiguration.isToken(ownerToken) else {
            throw NBGWError(
                .invalidArgument,
                "the Kii owner token is malformed (it must be 8 to 512 printable characters without spaces); set "
                    + "\(EnvironmentKey.ownerToken) or `owner_token` to an access token of the owner user"
            )
        }
        if let appKey, appKey.isEmpty || appKey.utf8.count > 256 || !appKey.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        {
            throw NBGWError(.invalidArgument, "the Kii app key must be 1 to 256 printable characters without spaces")
        }
        self.site = site
        self.appID = appID
        self.appKey = appKey
        self.owner = owner
        self.ownerToken = ownerToken
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.retryPolicy = retryPolicy
        self.labelBase = labelBase.hasSuffix("/") ? labelBase : labelBase + "/"
        self.maximumResponseBytes = 1 << 20
    }

    public var description: String {
        "KiiConfiguration(site: \(site), appID: \(appID), appKey: \(appKey == nil ? "none" : "set"), owner: \(owner), "
            + "ownerToken: <redacted>, connectTimeout: \(connectTimeout), requestTimeout: \(requestTimeout), "
            + "maxAttempts: \(retryPolicy.maxAttempts), labelBase: \(labelBase))"
    }

    /// `kii+https://HOST[:PORT][/APP_ID]` or `https://…` (the `kii+` prefix is what makes
    /// `--cloud` pick this adapter): the site, and the app id when the path names one.
    static func parseSite(_ text: String) throws(NBGWError) -> (site: String, appID: String?) {
        var trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.lowercased().hasPrefix(KiiCloud.urlPrefix) { trimmed.removeFirst(KiiCloud.urlPrefix.count) }
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        let form =
            "must be kii+https://HOST[:PORT][/APP_ID] (for example kii+https://api-jp.kii.com) or, for the local "
            + "emulator, kii+http://127.0.0.1:PORT/APP_ID"
        guard let components = URLComponents(string: trimmed), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty, components.query == nil, components.fragment == nil,
            components.user == nil, components.password == nil
        else {
            throw NBGWError(.invalidArgument, "Kii URL \(text.urlForDisplay()) \(form)")
        }
        let segments = components.path.split(separator: "/").map(String.init)
        guard segments.count <= 1 else {
            throw NBGWError(.invalidArgument, "Kii URL \(text.urlForDisplay()) \(form)")
        }
        let loopback = ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host.lowercased())
        guard scheme == "https" || (scheme == "http" && loopback) else {
            throw NBGWError(
                .invalidArgument,
                "Kii URL \(text.urlForDisplay()) uses \(scheme); use https (plain http only to a loopback "
                    + "emulator): tokens must not cross a network in clear"
            )
        }
        var site = URLComponents()
        site.scheme = scheme
        site.host = host
        site.port = components.port
        return (site.string ?? trimmed, segments.first)
    }

    static func isAppID(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64
            && text.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
    }

    /// Tokens go into a header: printable ASCII, no spaces.
    static func isToken(_ text: String) -> Bool {
        (8...512).contains(text.utf8.count) && text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }
}
