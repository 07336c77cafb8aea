import Foundation
import HTTPTypes
import Hummingbird

/// The per-request context: the client's address and, once authenticated, the API key's name.
public struct IngestRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// `ip:port` of the peer (`[ip]:port` for IPv6), as recorded in the ingest trail; behind a
    /// trusted proxy, the client's address the proxy reported (no port)
    /// (``resolveForwardedClient(_:trustedProxies:)``).
    public var clientAddress: String
    /// The peer's IP address alone (the proxy's, behind one).
    public let peerIP: String?
    /// The authenticated API key's name; set before any route handler runs.
    public var apiKeyName: String?
    /// The authenticated API key's scope.
    public var apiKeyScope: String?
    /// True once ``resolveForwardedClient(_:trustedProxies:)`` ran (the console and the API share
    /// a request; the header is read once).
    public private(set) var clientResolved = false

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        if let address = source.channel.remoteAddress, let ip = address.ipAddress {
            let port = address.port.map { ":\($0)" } ?? ""
            clientAddress = ip.contains(":") ? "[\(ip)]\(port)" : "\(ip)\(port)"
            peerIP = ip
        } else {
            clientAddress = "unknown"
            peerIP = nil
        }
    }

    /// The request body limit Hummingbird applies to its own decoders (ours is stricter).
    public var maxUploadSize: Int { 64 * 1024 }

    /// When the peer is one of `trustedProxies`, takes the client's address from `X-Forwarded-For`:
    /// the rightmost address that is not itself a trusted proxy (anything left of it was written by
    /// the client and proves nothing). A header that is missing or not an IP address leaves the
    /// proxy's address. Headers from anyone else are ignored.
    public mutating func resolveForwardedClient(_ request: Request, trustedProxies: Set<String>) {
        guard !clientResolved else { return }
        clientResolved = true
        guard let peerIP, trustedProxies.contains(peerIP) else { return }
        let hops = request.headers[values: HTTPField.Name("X-Forwarded-For")!]
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        for hop in hops.reversed() {
            guard Self.isIPAddress(hop) else { return }
            if !trustedProxies.contains(hop) {
                clientAddress = hop
                return
            }
        }
    }

    /// Whether `text` is an IPv4 or IPv6 address literal.
    public static func isIPAddress(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }
}
