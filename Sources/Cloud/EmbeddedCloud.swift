import DeviceIdentity
import Pairing
import Registry

/// The default cloud: no network. Device ids and label codes are minted here and kept in the
/// registry; the labels it issued are resolved from the registry.
public struct EmbeddedCloud: CloudService {
    /// Where this cloud's labels point. Why `nbgw.local`: the label must be a URL a phone app can
    /// recognise as "resolve me through the gateway", and it must never collide with a real cloud.
    public static let defaultLabelBase = "https://nbgw.local/d/"

    public let registry: Registry
    public let labelBase: String

    public init(registry: Registry, labelBase: String = EmbeddedCloud.defaultLabelBase) {
        self.registry = registry
        self.labelBase = labelBase.hasSuffix("/") ? labelBase : labelBase + "/"
    }

    public var name: String { "embedded" }

    public func register(_ identity: ModuleIdentity) async throws(NBGWError) -> CloudRegistration {
        let registration = try registry.registerDevice(identity, mint: EmbeddedCloud.mint)
        return CloudRegistration(
            device: registration.device,
            labelPayload: labelPayload(for: registration.device),
            created: registration.created,
            changedFields: registration.changedFields
        )
    }

    public func resolve(_ payload: QRPayload) async throws(NBGWError) -> QRPayload {
        guard case .label(let label) = payload else { return payload }
        guard issued(label) else { throw foreignLabel(label) }
        guard let device = try registry.device(labelCode: label.code) else { throw EmbeddedCloud.unknownLabel(label) }
        return .nbBind(
            NBBindPayload(deviceID: try EmbeddedCloud.deviceID(device.deviceID), origin: .label, labelURL: label.url)
        )
    }

    /// Whether this cloud issued `label` (its base is ours); only then does the store know its code.
    public func issued(_ label: LabelReference) -> Bool {
        label.base.lowercased() == labelBase.lowercased()
    }

    public func foreignLabel(_ label: LabelReference) -> NBGWError {
        CloudLabels.foreign(label, base: labelBase)
    }

    public static func unknownLabel(_ label: LabelReference) -> NBGWError {
        CloudLabels.unknown(label)
    }

    public var syncsBindings: Bool { false }

    public func bindDevice(_ command: BindCommand, timeout: Duration) async throws(NBGWError) -> CloudBindOutcome {
        CloudBindOutcome(outcome: try await registry.bindInGroup(command, timeout: timeout).change)
    }

    public func unbindDevice(
        deviceID: String,
        source: BindingSource,
        operator: String?
    ) async throws(NBGWError)
        -> CloudUnbindOutcome
    {
        CloudUnbindOutcome(binding: try registry.unbind(deviceID: deviceID, source: source, operator: `operator`))
    }

    public func labelPayload(for device: DeviceRecord) -> String {
        labelBase + device.labelCode
    }

    /// A Tuya-style 20-character id (`nb` + 18 of `[a-z0-9]`) and a 12-character label code in
    /// Crockford base32 (no I, L, O, U: nothing a person or a scanner confuses), both from the CSPRNG.
    @Sendable static func mint() -> (deviceID: DeviceID, labelCode: String) {
        var generator = SystemRandomNumberGenerator()
        let idAlphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
        let codeAlphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
        let id =
            "nb" + String(decoding: (0..<18).map { _ in idAlphabet.randomElement(using: &generator)! }, as: UTF8.self)
        let code = String(decoding: (0..<12).map { _ in codeAlphabet.randomElement(using: &generator)! }, as: UTF8.self)
        return (try! DeviceID(id), code)
    }

    static func deviceID(_ text: String) throws(NBGWError) -> DeviceID {
        do {
            return try DeviceID(text)
        } catch {
            throw NBGWError(.internalError, "stored device id is invalid: \(error)")
        }
    }
}
