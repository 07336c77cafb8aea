// Fuzz/ only (not a symlink): the one file of this target that is not nbgw's shipped source.
//
// Why: as for the HTTP cloud (Fuzz/Sources/TuyaCloud/NotBuilt.swift), the daemon's config reader
// knows Kii only through `CloudCatalogue.adapters`: its mode, the `--cloud` specs it claims, its
// `[cloud]` keys and secrets and its `check` (`KiiCloud+Adapter.swift`, compiled as shipped, with
// the configuration files it uses). `KiiCloud` itself holds an AsyncHTTPClient, which this package
// does not build under AddressSanitizer. So the class is declared here without a client; every
// member stops the run with a crash naming this file, so the stand-in can never answer for the
// real type.
import Cloud
import DeviceIdentity
import Logging
import Pairing

public final class KiiCloud: CloudService {
    /// What `--cloud` specs of this kind start with (the shipped value: KiiConfiguration reads it).
    public static let urlPrefix = "kii+"

    public init(configuration: KiiConfiguration, logger: Logger? = nil) {
        fatalError("Fuzz/: KiiCloud is not built in the fuzz package (Fuzz/Sources/KiiCloud/NotBuilt.swift)")
    }

    public var name: String { Self.notBuilt() }
    public var labelBase: String { Self.notBuilt() }
    public var syncsBindings: Bool { Self.notBuilt() }

    public func register(
        _ module: CloudModule,
        attempt: CloudAttempt
    ) async throws(CloudFailure) -> CloudRegisteredModule {
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
        fatalError("Fuzz/: KiiCloud is not built in the fuzz package (Fuzz/Sources/KiiCloud/NotBuilt.swift)")
    }
}
