/// Device management, after the Private Cloud's IoT Core "Device Management" list (query devices
/// of a home, details one and in bulk, delete, transfer, freeze/unfreeze, operation log), in
/// nbgw's profile: the paths sit beside the registration API's under `/v1.0/iot-03/`, signed and
/// enveloped like the rest (docs/cloud-api.yaml, "Device management"). nbgw-cloud serves them; a
/// cloud without them (the emulator) answers 404 with code 1108.
extension CloudAPI {
    /// `GET ?device_ids=a,b,…`: details of up to ``deviceDetailsLimit`` devices at once.
    public static let devicesPath = "/v1.0/iot-03/devices"
    /// The most device ids one bulk details call takes.
    public static let deviceDetailsLimit = 50
    /// `GET` a device's details; `DELETE` deletes the device (its registration and binding).
    public static func devicePath(_ deviceID: String) -> String { "\(devicesPath)/\(deviceID)" }
    /// `POST {from_uid, from_home, to_uid, to_home, reason}`: moves a bound device from one
    /// account's home to another's in one transaction, audited.
    public static func deviceTransferPath(_ deviceID: String) -> String { "\(devicePath(deviceID))/transfer" }
    /// `POST {frozen, reason}`: freezes a device (binds refused with code 3007) or unfreezes it.
    public static func deviceFreezePath(_ deviceID: String) -> String { "\(devicePath(deviceID))/freeze" }
    /// `GET ?page_size=&last_row_key=`: the device's operation log, oldest first.
    public static func deviceLogsPath(_ deviceID: String) -> String { "\(devicePath(deviceID))/logs" }
    /// `GET ?page_size=&last_row_key=`: the devices bound in a home of the tenant, by device id.
    public static func homeDevicesPath(_ home: String) -> String { "\(homesPrefix)\(home)/devices" }
    /// Where the paths of homes begin.
    public static let homesPrefix = "/v1.0/iot-03/homes/"

    /// A device as device management shows it: its registration, whether it is frozen, and its
    /// binding when it has one.
    public struct Device: Codable, Sendable, Equatable {
        public var deviceID: String
        public var imei: String
        public var labelCode: String
        public var productID: String?
        public var imsi: String?
        public var iccid: String?
        public var manufacturer: String?
        public var model: String?
        public var firmware: String?
        /// The gateway that registered it first.
        public var registeredBy: String
        /// Milliseconds since the epoch.
        public var registeredAt: Int64
        public var updatedAt: Int64
        /// Frozen devices refuse binds (code 3007) until unfrozen.
        public var frozen: Bool
        public var frozenReason: String?
        /// Nil when bound to nobody.
        public var binding: DeviceBinding?

        public init(
            deviceID: String,
            imei: String,
            labelCode: String,
            productID: String? = nil,
            imsi: String? = nil,
            iccid: String? = nil,
            manufacturer: String? = nil,
            model: String? = nil,
            firmware: String? = nil,
            registeredBy: String,
            registeredAt: Int64,
            updatedAt: Int64,
            frozen: Bool = false,
            frozenReason: String? = nil,
            binding: DeviceBinding? = nil
        ) {
            self.deviceID = deviceID
            self.imei = imei
            self.labelCode = labelCode
            self.productID = productID
            self.imsi = imsi
            self.iccid = iccid
            self.manufacturer = manufacturer
            self.model = model
            self.firmware = firmware
            self.registeredBy = registeredBy
            self.registeredAt = registeredAt
            self.updatedAt = updatedAt
            self.frozen = frozen
            self.frozenReason = frozenReason
            self.binding = binding
        }

        enum CodingKeys: String, CodingKey {
            case deviceID = "device_id"
            case imei
            case labelCode = "label_code"
            case productID = "product_id"
            case imsi, iccid, manufacturer, model, firmware
            case registeredBy = "registered_by"
            case registeredAt = "registered_at"
            case updatedAt = "updated_at"
            case frozen
            case frozenReason = "frozen_reason"
            case binding
        }
    }

    /// Whose a device is: the account, its home, and the gateway that bound it.
    public struct DeviceBinding: Codable, Sendable, Equatable {
        public var uid: String
        public var home: String
        public var gateway: String
        public var boundAt: Int64

        public init(uid: String, home: String, gateway: String, boundAt: Int64) {
            self.uid = uid
            self.home = home
            self.gateway = gateway
            self.boundAt = boundAt
        }

        enum CodingKeys: String, CodingKey {
            case uid, home, gateway
            case boundAt = "bound_at"
        }
    }

    /// The answer of the bulk details call: the devices found, in the order asked, and the ids
    /// that name no device of the tenant.
    public struct DeviceDetails: Codable, Sendable, Equatable {
        public var list: [Device]
        public var missing: [String]

        public init(list: [Device], missing: [String]) {
            self.list = list
            self.missing = missing
        }
    }

    /// `POST …/devices/{device_id}/transfer`. The current owner is named, so a transfer never
    /// moves a device its caller did not see where it is (3002 naming the owner otherwise).
    public struct TransferRequest: Codable, Sendable, Equatable {
        public var fromUID: String
        public var fromHome: String
        public var toUID: String
        public var toHome: String
        /// Why, for the operation log (1 to 256 characters).
        public var reason: String

        public init(fromUID: String, fromHome: String, toUID: String, toHome: String, reason: String) {
            self.fromUID = fromUID
            self.fromHome = fromHome
            self.toUID = toUID
            self.toHome = toHome
            self.reason = reason
        }

        enum CodingKeys: String, CodingKey {
            case fromUID = "from_uid"
            case fromHome = "from_home"
            case toUID = "to_uid"
            case toHome = "to_home"
            case reason
        }
    }

    /// `POST …/devices/{device_id}/freeze`.
    public struct FreezeRequest: Codable, Sendable, Equatable {
        /// True freezes, false unfreezes.
        public var frozen: Bool
        /// Why, for the operation log and the device's details (1 to 256 characters).
        public var reason: String

        public init(frozen: Bool, reason: String) {
            self.frozen = frozen
            self.reason = reason
        }
    }

    /// What a device-management change did: `transferred`, `frozen`, `unfrozen`, `deleted`, or
    /// `unchanged` (already in that state), with the device as it is now (nil once deleted).
    public struct DeviceChangeResult: Codable, Sendable, Equatable {
        public var deviceID: String
        public var status: String
        public var at: Int64
        public var device: Device?

        public init(deviceID: String, status: String, at: Int64, device: Device?) {
            self.deviceID = deviceID
            self.status = status
            self.at = at
            self.device = device
        }

        enum CodingKeys: String, CodingKey {
            case deviceID = "device_id"
            case status, at, device
        }
    }
}
