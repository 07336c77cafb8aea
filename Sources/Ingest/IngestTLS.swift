import ServerSupport

/// The ingest API's TLS identity (issue 7: "TLS via config when exposed"): a ``TLSIdentity``
/// whose messages speak of `nbgw`, `nbgwd` and docs/ingest.md.
///
/// ```swift
/// var configuration = IngestConfiguration(host: "0.0.0.0", port: 8443)
/// configuration.tls = try IngestTLS.load(certificate: "/etc/nbgw/ingest.crt", key: "/etc/nbgw/ingest.key")
/// ```
public typealias IngestTLS = TLSIdentity

/// Why the ingest API's certificate or key cannot be used.
public typealias IngestTLSError = TLSIdentityError

extension TLSIdentity.Owner {
    /// The ingest API: `nbgw ingest serve` and `nbgwd`.
    public static let ingest = TLSIdentity.Owner(program: "nbgw", service: "nbgwd", guide: "docs/ingest.md, \"TLS\"")
}

extension TLSIdentity {
    /// ``TLSIdentity/load(certificate:key:owner:)`` for the ingest API.
    public static func load(certificate: String, key: String) throws(TLSIdentityError) -> TLSIdentity {
        try load(certificate: certificate, key: key, owner: .ingest)
    }
}
