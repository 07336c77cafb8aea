import Cloud
import DeviceIdentity
import Pairing
import Registry

/// Registers modules with the configured cloud: `nbgw devices register` now, the daemon's
/// supervisors later, through this same code path.
public struct DeviceRegistrar: Sendable {
    public let cloud: any CloudService

    public init(cloud: any CloudService) {
        self.cloud = cloud
    }

    /// Validates raw identity strings (as typed by an operator or read from a modem) and registers.
    public func register(
        imei: String,
        imsi: String? = nil,
        iccid: String? = nil,
        manufacturer: String? = nil,
        model: String? = nil,
        firmware: String? = nil,
        productID: String? = nil
    ) async throws(NBGWError) -> CloudRegistration {
        let identity: ModuleIdentity
        do {
            identity = ModuleIdentity(
                imei: try IMEI(imei),
                imsi: try imsi.map { value throws(IdentityError) in try IMSI(value) },
                iccid: try iccid.map { value throws(IdentityError) in try ICCID(value) },
                manufacturer: try DeviceRegistrar.text(manufacturer, "manufacturer", limit: 64),
                model: try DeviceRegistrar.text(model, "model", limit: 64),
                firmware: try DeviceRegistrar.text(firmware, "firmware", limit: 128),
                productID: try DeviceRegistrar.text(productID, "product", limit: 64)
            )
        } catch let error as IdentityError {
            throw NBGWError(.invalidArgument, "\(error); check the value printed on the module or read by AT")
        } catch let error as NBGWError {
            throw error
        } catch {
            throw NBGWError(.invalidArgument, "\(error)")
        }
        return try await cloud.register(identity)
    }

    static func text(_ value: String?, _ name: String, limit: Int) throws -> String? {
        guard let value else { return nil }
        guard !value.isEmpty, value.count <= limit,
            value.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F })
        else {
            throw NBGWError(
                .invalidArgument,
                "\(name) \(value.escapedForDisplay()) must be 1 to \(limit) printable characters"
            )
        }
        return value
    }
}
