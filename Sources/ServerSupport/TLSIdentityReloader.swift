import NIOSSL
import Synchronization

/// A ``TLSIdentity`` that can be replaced while the server runs: each new handshake takes the
/// identity current at that moment, connections already open keep theirs. `nbgw-cloud serve`
/// calls ``reload()`` on SIGHUP, so a renewed certificate is served without dropping a request.
///
/// Why NIOSSL's context callback rather than a new listener: the callback runs once per client
/// hello and hands the certificate and key to that handshake only, so nothing else of the server
/// (its socket, its connections, its TLS settings) changes on a reload.
public final class TLSIdentityReloader: Sendable {
    private let current: Mutex<TLSIdentity>
    private let owner: TLSIdentity.Owner

    /// Serves `identity` until the next successful ``reload()``.
    public init(_ identity: TLSIdentity, owner: TLSIdentity.Owner) {
        self.current = Mutex(identity)
        self.owner = owner
    }

    /// The identity new handshakes get.
    public var identity: TLSIdentity { current.withLock { $0 } }

    /// Reads the same two files again and, when they are good, serves them from the next
    /// handshake on. When they are not, nothing changes and the error says why: a reload never
    /// leaves a server without a certificate.
    @discardableResult
    public func reload() throws(TLSIdentityError) -> TLSIdentity {
        let old = identity
        let new = try TLSIdentity.load(certificate: old.certificatePath, key: old.keyPath, owner: owner)
        current.withLock { $0 = new }
        return new
    }

    /// The server configuration: the identity loaded first (which also checks the settings when
    /// the listener starts), replaced per handshake by the current one.
    public var serverConfiguration: TLSConfiguration {
        var configuration = identity.serverConfiguration
        configuration.sslContextCallback = { [self] _, promise in
            let identity = self.identity
            var override = NIOSSLContextConfigurationOverride()
            override.certificateChain = identity.certificateChain.map { .certificate($0) }
            override.privateKey = .privateKey(identity.privateKey)
            promise.succeed(override)
        }
        return configuration
    }
}
