import Cloud
import Foundation
import NBGWCore

/// Everything ``HTTPCloud`` needs to talk to one cloud: where, as whom, and how patiently.
///
/// Build it with ``init(baseURL:credentials:connectTimeout:requestTimeout:retryPolicy:labelBase:tokenRefreshMargin:)``
/// or from the caller's environment and config file with
/// ``resolve(baseURL:settings:environment:)`` / ``fromEnvironment(_:baseURL:)``. The description
/// never contains the secret.
public struct CloudConfiguration: Sendable, Equatable, CustomStringConvertible {
    /// Where the emulator's labels point unless configured otherwise (a reserved `.invalid` host:
    /// the label is resolved through the cloud's parse call, never fetched).
    public static let defaultLabelBase = "https://label.nbgw-cloud.invalid/d/"

    /// The OpenAPI endpoint, scheme and host (and port), no trailing slash: a data center such as
    /// `https://openapi.tuyaeu.com`, or the emulator's `http://127.0.0.1:8787`.
    public let baseURL: String
    public let credentials: CloudCredentials
    /// How long establishing a TCP (and TLS) connection may take.
    public var connectTimeout: Duration
    /// How long one request may take from sending to the response head (per attempt).
    public var requestTimeout: Duration
    public var retryPolicy: RetryPolicy
    /// The URL prefix of the labels this cloud issues (`labelBase + labelCode`).
    public var labelBase: String
    /// Refresh the access token this long before it expires. Why 60 s: tuya-connector-python does
    /// the same, and it covers a request that is signed just before expiry and arrives just after.
    public var tokenRefreshMargin: Duration
    /// Larger response bodies are refused (a misconfigured URL pointing at a download).
    public var maximumResponseBytes: Int
    /// The certificate authorities this cloud's certificate is checked against instead of the
    /// system's (a fleet cloud behind a private CA: `ca_file`, `NBGW_CLOUD_CA_FILE`); nil: the
    /// system's trust store. Verification itself is never turned off.
    public var trustedAuthorities: CloudTrustedAuthorities?
    /// Whether the outbox may use the cloud's batch endpoint (`batch`, `NBGW_CLOUD_BATCH`; on by
    /// default; a cloud without one is detected and then sent single calls anyway). Off for a
    /// proxy that forwards only known paths, and for tools/bench-drain.sh's baseline.
    public var useBatches = true

    /// - Throws: `INVALID_ARGUMENT` when the URL is not `https://HOST[:PORT]` (plain `http` is
    ///   accepted only for loopback hosts, where the emulator runs: credentials and tokens must
    ///   not cross a network in clear).
    public init(
        baseURL: String,
        credentials: CloudCredentials,
        connectTimeout: Duration = .seconds(5),
        requestTimeout: Duration = .seconds(15),
        retryPolicy: RetryPolicy = .standard,
        labelBase: String = CloudConfiguration.defaultLabelBase,
        tokenRefreshMargin: Duration = .seconds(60)
    ) throws(NBGWError) {
        self.baseURL = try CloudConfiguration.validatedBaseURL(baseURL)
        self.credentials = credentials
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.retryPolicy = retryPolicy
        self.labelBase = labelBase.hasSuffix("/") ? labelBase : labelBase + "/"
        self.tokenRefreshMargin = tokenRefreshMargin
        self.maximumResponseBytes = 1 << 20
    }

    public var description: String {
        "CloudConfiguration(baseURL: \(baseURL), clientID: \(credentials.clientID), secret: <redacted>, "
            + "connectTimeout: \(connectTimeout), requestTimeout: \(requestTimeout), "
            + "maxAttempts: \(retryPolicy.maxAttempts), labelBase: \(labelBase)"
            + (trustedAuthorities.map { ", caFile: \($0.path)" } ?? "") + ")"
    }

    /// The host (and port) part of ``baseURL``, for messages.
    public var host: String {
        URLComponents(string: baseURL).map { components in
            (components.host ?? baseURL) + (components.port.map { ":\($0)" } ?? "")
        } ?? baseURL
    }

    static func validatedBaseURL(_ text: String) throws(NBGWError) -> String {
        var trimmed = text.trimmingCharacters(in: .whitespaces)
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let components = URLComponents(string: trimmed), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty, components.path.isEmpty, components.query == nil,
            components.user == nil, components.password == nil
        else {
            throw NBGWError(
                .invalidArgument,
                "cloud URL \(text.urlForDisplay()) must be https://HOST[:PORT] (for example "
                    + "https://openapi.tuyaeu.com) or, for the local emulator, http://127.0.0.1:PORT"
            )
        }
        let loopback = ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host.lowercased())
        guard scheme == "https" || (scheme == "http" && loopback) else {
            throw NBGWError(
                .invalidArgument,
                "cloud URL \(text.urlForDisplay()) uses \(scheme); use https (plain http only to a loopback "
                    + "emulator), credentials and tokens must not cross a network in clear"
            )
        }
        return trimmed
    }
}
