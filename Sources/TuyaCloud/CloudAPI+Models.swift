/// JSON bodies and results of nbgw's cloud profile. Every key is snake_case, like Tuya's OpenAPI
/// (docs/cloud-api.yaml "Naming").
extension CloudAPI {
    /// `GET /v1.0/token` and `/v1.0/token/{refresh_token}` (§1.5).
    public struct TokenResult: Codable, Sendable, Equatable {
        public var accessToken: String
        /// Seconds the access token is valid (7200).
        public var expireTime: Int
        public var refreshToken: String
        public var uid: String

        public init(accessToken: String, expireTime: Int, refreshToken: String, uid: String) {
            self.accessToken = accessToken
            self.expireTime = expireTime
            self.refreshToken = refreshToken
            self.uid = uid
        }

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case expireTime = "expire_time"
            case refreshToken = "refresh_token"
            case uid
        }
    }

    /// `POST /v1.0/iot-03/nb-modules`.
    public struct RegisterRequest: Codable, Sendable, Equatable {
        public var imei: String
        public var imsi: String?
        public var iccid: String?
        public var manufacturer: String?
        public var model: String?
        public var firmware: String?
        public var productID: String?
        /// A device id to keep, when the module is already known locally (an embedded-cloud store
        /// moving to this cloud). The cloud uses it only for an IMEI it has never seen.
        public var deviceID: String?
        /// The label code to keep, under the same rule.
        public var labelCode: String?

        public init(
            imei: String,
            imsi: String? = nil,
            iccid: String? = nil,
            manufacturer: String? = nil,
            model: String? = nil,
            firmware: String? = nil,
            productID: String? = nil,
            deviceID: String? = nil,
            labelCode: String? = nil
        ) {
            self.imei = imei
            self.imsi = imsi
            self.iccid = iccid
            self.manufacturer = manufacturer
            self.model = model
            self.firmware = firmware
            self.productID = productID
            self.deviceID = deviceID
            self.labelCode = labelCode
        }

        enum CodingKeys: String, CodingKey {
            case imei, imsi, iccid, manufacturer, model, firmware
            case productID = "product_id"
            case deviceID = "device_id"
            case labelCode = "label_code"
        }
    }

    public struct RegisterResult: Codable, Sendable, Equatable {
        public var deviceID: String
        public var labelCode: String
        /// The label's QR payload (`label base + label code`).
        public var qrcode: String
        /// False when the IMEI was already registered (the same device id came back).
        public var created: Bool
        public var changedFields: [String]

        public init(deviceID: String, labelCode: String, qrcode: String, created: Bool, changedFields: [String]) {
            self.deviceID = deviceID
            self.labelCode = labelCode
            self.qrcode = qrcode
            self.created = created
            self.changedFields = changedFields
        }

        enum CodingKeys: String, CodingKey {
            case deviceID = "device_id"
            case labelCode = "label_code"
            case qrcode, created
            case changedFields = "changed_fields"
        }
    }

    /// One registered module in `GET /v1.0/iot-03/nb-modules`.
    public struct Module: Codable, Sendable, Equatable {
        public var deviceID: String
        public var imei: String
        public var labelCode: String
        public var productID: String?
        /// A fleet cloud's `this_gateway` or `other_gateway`: whether the gateway asking registered
        /// the module, so that its sync check does not report the fleet's other modules as missing
        /// here. Absent from a cloud with one gateway (the emulator).
        public var origin: String?

        /// ``origin`` of a module another gateway of the fleet registered.
        public static let otherGateway = "other_gateway"
        /// ``origin`` of a module the asking gateway registered.
        public static let thisGateway = "this_gateway"

        public init(deviceID: String, imei: String, labelCode: String, productID: String?, origin: String? = nil) {
            self.deviceID = deviceID
            self.imei = imei
            self.labelCode = labelCode
            self.productID = productID
            self.origin = origin
        }

        enum CodingKeys: String, CodingKey {
            case deviceID = "device_id"
            case imei
            case labelCode = "label_code"
            case productID = "product_id"
            case origin
        }
    }

    /// A page of a list call: `last_row_key` is passed back to get the next page.
    public struct Page<Item: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
        public var list: [Item]
        public var hasMore: Bool
        public var lastRowKey: String?

        public init(list: [Item], hasMore: Bool, lastRowKey: String?) {
            self.list = list
            self.hasMore = hasMore
            self.lastRowKey = lastRowKey
        }

        enum CodingKeys: String, CodingKey {
            case list
            case hasMore = "has_more"
            case lastRowKey = "last_row_key"
        }
    }

    /// `POST /v1.0/iot-03/qrcode/parse`.
    public struct QRParseRequest: Codable, Sendable, Equatable {
        public var code: String

        public init(code: String) { self.code = code }
    }

    /// The app SDK's `{actionName, actionData}` (§1.1), spelled in snake_case like every key of
    /// the profile: `{action_name, action_data: {id, imei?, product_id?}}`. The module's IMEI and
    /// product let a gateway that never registered it (a label printed by another gateway of the
    /// fleet) record it and bind it under its own rules; clients that read only `id` are unaffected.
    public struct QRParseResult: Codable, Sendable, Equatable {
        public struct ActionData: Codable, Sendable, Equatable {
            public var id: String
            public var imei: String?
            public var productID: String?

            public init(id: String, imei: String? = nil, productID: String? = nil) {
                self.id = id
                self.imei = imei
                self.productID = productID
            }

            enum CodingKeys: String, CodingKey {
                case id
                case imei
                case productID = "product_id"
            }
        }

        public var actionName: String
        public var actionData: ActionData

        public init(actionName: String, actionData: ActionData) {
            self.actionName = actionName
            self.actionData = actionData
        }

        enum CodingKeys: String, CodingKey {
            case actionName = "action_name"
            case actionData = "action_data"
        }
    }

    /// `POST /v1.0/iot-03/device-registration/token` (§1.3). `asset_id` is the home, `uid` the account.
    public struct PairingTokenRequest: Codable, Sendable, Equatable {
        public var pairingType: String
        public var assetID: String
        public var uid: String
        public var timeZoneID: String?

        public init(
            pairingType: String = CloudAPI.nbPairingType,
            assetID: String,
            uid: String,
            timeZoneID: String? = nil
        ) {
            self.pairingType = pairingType
            self.assetID = assetID
            self.uid = uid
            self.timeZoneID = timeZoneID
        }

        enum CodingKeys: String, CodingKey {
            case pairingType = "pairing_type"
            case assetID = "asset_id"
            case uid
            case timeZoneID = "time_zone_id"
        }
    }

    public struct PairingTokenResult: Codable, Sendable, Equatable {
        public var token: String
        /// Seconds the token is valid (600).
        public var expireTime: Int
        public var region: String?

        public init(token: String, expireTime: Int, region: String?) {
            self.token = token
            self.expireTime = expireTime
            self.region = region
        }

        enum CodingKeys: String, CodingKey {
            case token
            case expireTime = "expire_time"
            case region
        }
    }

    /// `POST /v1.0/iot-03/device-registration/nb-bind`.
    public struct BindRequest: Codable, Sendable, Equatable {
        public var deviceID: String
        public var assetID: String
        public var uid: String
        public var token: String
        public var timeZoneID: String?

        public init(deviceID: String, assetID: String, uid: String, token: String, timeZoneID: String? = nil) {
            self.deviceID = deviceID
            self.assetID = assetID
            self.uid = uid
            self.token = token
            self.timeZoneID = timeZoneID
        }

        enum CodingKeys: String, CodingKey {
            case deviceID = "device_id"
            case assetID = "asset_id"
            case uid, token
            case timeZoneID = "time_zone_id"
        }
    }

    public struct BindResult: Codable, Sendable, Equatable {
        public var deviceID: String
        /// `bound`, or `unchanged` when it was already bound to this account and home.
        public var status: String
        /// Milliseconds since the epoch.
        public var boundAt: Int64

        public init(deviceID: String, status: String, boundAt: Int64) {
            self.deviceID = deviceID
            self.status = status
            self.boundAt = boundAt
        }

        enum CodingKeys: String, CodingKey {
            case deviceID = "device_id"
            case status
            case boundAt = "bound_at"
        }
    }

    /// `GET /v1.1/iot-03/device-registration/tokens/{token}` (§1.3).
    public struct PairingResult: Codable, Sendable, Equatable {
        public struct SuccessDevice: Codable, Sendable, Equatable {
            public var deviceID: String
            public var productID: String?

            public init(deviceID: String, productID: String?) {
                self.deviceID = deviceID
                self.productID = productID
            }

            enum CodingKeys: String, CodingKey {
                case deviceID = "device_id"
                case productID = "product_id"
            }
        }

        public struct ErrorDevice: Codable, Sendable, Equatable {
            public var deviceID: String
            /// The cloud code as a string, as Tuya's error lists carry it (`"3002"`).
            public var errorCode: String
            public var errorMsg: String

            public init(deviceID: String, errorCode: String, errorMsg: String) {
                self.deviceID = deviceID
                self.errorCode = errorCode
                self.errorMsg = errorMsg
            }

            enum CodingKeys: String, CodingKey {
                case deviceID = "device_id"
                case errorCode = "error_code"
                case errorMsg = "error_msg"
            }
        }

        public var successDevices: [SuccessDevice]
        public var errorDevices: [ErrorDevice]

        public init(successDevices: [SuccessDevice], errorDevices: [ErrorDevice]) {
            self.successDevices = successDevices
            self.errorDevices = errorDevices
        }

        enum CodingKeys: String, CodingKey {
            case successDevices = "success_devices"
            case errorDevices = "error_devices"
        }
    }

    /// `DELETE /v1.0/iot-03/device-registration/bindings/{device_id}`.
    public struct UnbindResult: Codable, Sendable, Equatable {
        public var deviceID: String
        public var status: String

        public init(deviceID: String, status: String) {
            self.deviceID = deviceID
            self.status = status
        }

        enum CodingKeys: String, CodingKey {
            case deviceID = "device_id"
            case status
        }
    }

    /// One binding in `GET /v1.0/iot-03/device-registration/bindings`.
    public struct Binding: Codable, Sendable, Equatable {
        public var deviceID: String
        public var uid: String
        public var assetID: String
        public var boundAt: Int64

        public init(deviceID: String, uid: String, assetID: String, boundAt: Int64) {
            self.deviceID = deviceID
            self.uid = uid
            self.assetID = assetID
            self.boundAt = boundAt
        }

        enum CodingKeys: String, CodingKey {
            case deviceID = "device_id"
            case uid
            case assetID = "asset_id"
            case boundAt = "bound_at"
        }
    }

    /// One event of a fleet cloud's stream (`GET /v1.0/nbgw/events`).
    public struct Event: Codable, Sendable, Equatable {
        /// Where the stream goes on after this event: the consumer keeps it and asks `after` it.
        public var cursor: String
        /// `registered`, `updated`, `bound`, `unbound` or `conflict`.
        public var type: String
        /// When, in milliseconds since the epoch.
        public var at: Int64
        public var deviceID: String
        /// The gateway whose request it was.
        public var gateway: String
        /// What the type carries: the IMEI (registered), the changed fields (updated), the account
        /// (bound), the refusal (conflict); absent for unbound.
        public var detail: String?

        public init(cursor: String, type: String, at: Int64, deviceID: String, gateway: String, detail: String?) {
            self.cursor = cursor
            self.type = type
            self.at = at
            self.deviceID = deviceID
            self.gateway = gateway
            self.detail = detail
        }

        enum CodingKeys: String, CodingKey {
            case cursor, type, at
            case deviceID = "device_id"
            case gateway, detail
        }
    }

    /// A page of the event stream: the events after the cursor asked for, and the cursor to ask
    /// after next (the last event's, or the one asked for when there is none).
    public struct EventPage: Codable, Sendable, Equatable {
        public var events: [Event]
        public var nextCursor: String

        public init(events: [Event], nextCursor: String) {
            self.events = events
            self.nextCursor = nextCursor
        }

        enum CodingKeys: String, CodingKey {
            case events
            case nextCursor = "next_cursor"
        }
    }

    /// One call of a batch: what would have been sent alone. `body` is the exact JSON text the
    /// call alone would carry (its idempotency key is bound to those bytes), absent for a DELETE.
    public struct BatchCall: Codable, Sendable, Equatable {
        public var method: String
        public var path: String
        public var idempotencyKey: String?
        public var body: String?

        public init(method: String, path: String, idempotencyKey: String?, body: String?) {
            self.method = method
            self.path = path
            self.idempotencyKey = idempotencyKey
            self.body = body
        }

        enum CodingKeys: String, CodingKey {
            case method, path
            case idempotencyKey = "idempotency_key"
            case body
        }
    }

    /// `POST /v1.0/nbgw/batch`.
    public struct BatchRequest: Codable, Sendable, Equatable {
        public var requests: [BatchCall]

        public init(requests: [BatchCall]) { self.requests = requests }
    }

    /// One call's answer in a batch: the envelope it would have had alone, without `t`.
    public struct BatchAnswer<Result: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
        public var success: Bool
        public var result: Result?
        public var code: Int?
        public var msg: String?
    }

    /// The answers of a batch, one per call, in order.
    public struct BatchResult<Result: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
        public var results: [BatchAnswer<Result>]
    }
}
