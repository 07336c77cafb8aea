import Hummingbird

/// The per-request context: the client's address and, once authenticated, the API key's name.
public struct IngestRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// `ip:port` of the peer (`[ip]:port` for IPv6), as recorded in the ingest trail.
    public var clientAddress: String
    /// The authenticated API key's name; set before any route handler runs.
    public var apiKeyName: String?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        if let address = source.channel.remoteAddress, let ip = address.ipAddress {
            let port = address.port.map { ":\($0)" } ?? ""
            clientAddress = ip.contains(":") ? "[\(ip)]\(port)" : "\(ip)\(port)"
        } else {
            clientAddress = "unknown"
        }
    }

    /// The request body limit Hummingbird applies to its own decoders (ours is stricter).
    public var maxUploadSize: Int { 64 * 1024 }
}
