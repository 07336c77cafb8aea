import DeviceIdentity
import Logging
import NBGWCore
import Pairing

/// The default cloud: no network. Device ids and label codes are minted here and kept in the
/// gateway's store, which is the whole of this cloud's state: it has nothing to sync, and the
/// labels it issued resolve from the store.
public struct EmbeddedCloud: CloudService, CloudAdapter {
    /// Where this cloud's labels point. Why `nbgw.local`: the label must be a URL a phone app can
    /// recognise as "resolve me through the gateway", and it must never collide with a real cloud.
    public static let defaultLabelBase = "https://nbgw.local/d/"

    public let labelBase: String

    public init(labelBase: String = EmbeddedCloud.defaultLabelBase) {
        self.labelBase = labelBase.hasSuffix("/") ? labelBase : labelBase + "/"
    }

    public var name: String { "embedded" }

    public var syncsBindings: Bool { false }

    /// The ids the store already holds for the IMEI, or new ones.
    public func register(
        _ module: CloudModule,
        attempt: CloudAttempt
    ) async throws(CloudFailure)
        -> CloudRegisteredModule
    {
        if let known = module.knownDeviceID, let code = module.knownLabelCode, let id = try? DeviceID(known) {
            return CloudRegisteredModule(deviceID: id, labelCode: code, labelPayload: labelBase + code)
        }
        let (id, code) = EmbeddedCloud.mint()
        return CloudRegisteredModule(deviceID: id, labelCode: code, labelPayload: labelBase + code, minted: true)
    }

    /// Only labels the store holds exist here; the caller looked there first.
    public func resolveLabel(_ label: LabelReference, attempt: CloudAttempt) async throws(CloudFailure)
        -> CloudResolvedLabel
    {
        guard label.base.lowercased() == labelBase.lowercased() else {
            throw CloudFailure(.refused, CloudLabels.foreign(label, base: labelBase))
        }
        throw CloudFailure(.refused, CloudLabels.unknown(label))
    }

    public func send(_ change: CloudBindingChange, attempt: CloudAttempt) async throws(CloudFailure) -> String {
        throw CloudFailure(
            .refused,
            NBGWError(.internalError, "the embedded cloud keeps no bindings of its own (\(change)); nothing to send")
        )
    }

    public func inventory(of modules: [CloudInventory.Module]) async throws(CloudFailure) -> CloudInventory {
        throw CloudFailure(
            .refused,
            NBGWError(
                .invalidArgument,
                "the embedded cloud is the store itself; there is nothing to compare. Configure an HTTP cloud "
                    + "(--cloud URL) to check one"
            )
        )
    }

    public func shutdown() async {}

    /// A Tuya-style 20-character id (`nb` + 18 of `[a-z0-9]`) and a 12-character label code in
    /// Crockford base32 (no I, L, O, U: nothing a person or a scanner confuses), both from the CSPRNG.
    public static func mint() -> (deviceID: DeviceID, labelCode: String) {
        var generator = SystemRandomNumberGenerator()
        let idAlphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
        let codeAlphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
        let id =
            "nb" + String(decoding: (0..<18).map { _ in idAlphabet.randomElement(using: &generator)! }, as: UTF8.self)
        let code = String(decoding: (0..<12).map { _ in codeAlphabet.randomElement(using: &generator)! }, as: UTF8.self)
        return (try! DeviceID(id), code)
    }

    // MARK: CloudAdapter

    public static var mode: String { "local" }

    public static func claims(_ spec: String) -> Bool { spec == "local" }

    public static var settingsKeys: [String] { [] }

    public static var secretKeys: [String] { [] }

    /// Nothing to check: no URL, no credentials.
    public static func check(_ selection: CloudSelection, environment: [String: String]) throws(NBGWError) {}

    public static func make(
        _ selection: CloudSelection,
        environment: [String: String],
        logger: Logger?
    ) throws(NBGWError) -> any CloudService {
        EmbeddedCloud()
    }
}
