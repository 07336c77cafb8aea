// Fuzz/ only (not a symlink): the one file of this package that is not nbgw's shipped source.
//
// Why: the daemon's config reader knows the clouds through `CloudCatalogue.adapters`, and the HTTP
// cloud's adapter facts (`HTTPCloud+Adapter.swift`: its mode, the `--cloud` specs it claims, its
// `[cloud]` keys and secrets, its `check`) are static members of `HTTPCloud`, whose instances hold
// an AsyncHTTPClient; its credentials (`CloudCredentials.swift`) hand out a `TuyaSigner`, which
// hashes with swift-crypto. Building those here means NIO, NIOSSL, NIOHTTP2 and two BoringSSLs
// under AddressSanitizer (measured: a package of AsyncHTTPClient and swift-crypto alone,
// under the same flags, had built 732 of its 841 steps after 11 min 45 s and was stopped; the
// whole Fuzz/ build takes under 3 min), for code no parser runs. So this package compiles the
// adapter file and the configuration files it uses as shipped, and declares the two types here,
// without a client or a hash.
//
// The reader and the rendering call only the static facts and `check`; nothing in a fuzz target
// builds a cloud or signs. Should one ever do, every member below stops the run with a crash that
// names this file: the stand-ins can never answer for the real types.
import Cloud
import DeviceIdentity
import Logging
import NBGWCore
import Pairing

public final class HTTPCloud: CloudService {
    public let configuration: CloudConfiguration

    public init(configuration: CloudConfiguration, logger: Logger? = nil) {
        fatalError("Fuzz/: HTTPCloud is not built in the fuzz package (Fuzz/Sources/TuyaCloud/NotBuilt.swift)")
    }

    public var name: String { Self.notBuilt() }
    public var labelBase: String { Self.notBuilt() }
    public var syncsBindings: Bool { Self.notBuilt() }

    public typealias Registered = CloudRegisteredModule

    public func register(_ module: CloudModule, attempt: CloudAttempt) async throws(CloudFailure) -> Registered {
        Self.notBuilt()
    }

    public func resolveLabel(_ label: LabelReference, attempt: CloudAttempt) async throws(CloudFailure)
        -> CloudResolvedLabel
    {
        Self.notBuilt()
    }

    public func send(_ change: CloudBindingChange, attempt: CloudAttempt) async throws(CloudFailure) -> String {
        Self.notBuilt()
    }

    public func inventory(of modules: [CloudInventory.Module]) async throws(CloudFailure) -> CloudInventory {
        Self.notBuilt()
    }

    public func shutdown() async { Self.notBuilt() }

    private static func notBuilt() -> Never {
        fatalError("Fuzz/: HTTPCloud is not built in the fuzz package (Fuzz/Sources/TuyaCloud/NotBuilt.swift)")
    }
}

public struct TuyaSigner: Sendable {
    public init(clientID: String, secret: String) {
        fatalError("Fuzz/: TuyaSigner is not built in the fuzz package (Fuzz/Sources/TuyaCloud/NotBuilt.swift)")
    }
}

/// `ca_file`'s certificates are parsed by NIOSSL, which this package does not build (see above).
/// The reader's `check` may meet a `ca_file` key: it gets a refusal, a normal outcome for a
/// config under test, never a certificate this stand-in did not read.
public struct CloudTrustedAuthorities: Sendable, Equatable {
    public let path: String

    public static func load(_ path: String) throws(NBGWError) -> CloudTrustedAuthorities {
        throw NBGWError(
            .invalidArgument,
            "cloud CA file \(path): not read in the fuzz package (Fuzz/Sources/TuyaCloud/NotBuilt.swift)"
        )
    }
}
