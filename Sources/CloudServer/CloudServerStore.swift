import TuyaCloud

/// The storage seam of the signed cloud API (docs/cloud-api.yaml): everything the route handlers
/// of ``CloudServerHandler`` need from a store, so that the rules live once and the stores differ
/// only in how they keep state. The emulator keeps it in one SQLite file for tests; `nbgw-cloud`
/// keeps a fleet's in PostgreSQL (docs/fleet.md).
///
/// Every call is one transaction. A refusal of the API (a code of the envelope) is a `.failure`;
/// a thrown error is the store failing (answered as code 500, retryable).
public protocol CloudServerStore: Sendable {
    /// Who signs with `clientID`, and the secrets that may sign for it (two during a rotation);
    /// nil when nobody does.
    func credential(clientID: String) async throws -> CloudCredential?

    /// A new token pair for `principal` (simple mode, `grant_type=1`).
    func grantToken(_ principal: CloudPrincipal, now: Int64, lifetime: Duration) async throws -> CloudAPI.TokenResult

    /// A new pair for a refresh token of `principal`'s, which works once.
    func refreshToken(
        _ principal: CloudPrincipal,
        refreshToken: String,
        now: Int64,
        lifetime: Duration
    ) async throws -> Result<CloudAPI.TokenResult, CloudServerFailure>

    /// Nil when `accessToken` was issued to `principal` and is valid at `now`; else why not
    /// (1011 unknown or replaced, 1010 expired).
    func checkAccessToken(_ principal: CloudPrincipal, accessToken: String, now: Int64) async throws
        -> CloudServerFailure?

    /// Applies a state-changing call in one transaction with its idempotency record: a key seen
    /// with the same request hash answers the first success again (``CloudMutationAnswer/replayed``),
    /// with another hash it is refused (1113). Only successes are remembered.
    func mutate(
        _ mutation: CloudMutation,
        by principal: CloudPrincipal,
        idempotency: CloudIdempotency?,
        settings: CloudServerSettings,
        now: Int64
    ) async throws -> Result<CloudMutationAnswer, CloudServerFailure>

    /// Modules registered under `principal`'s tenant, by device id after `after`.
    func modules(_ principal: CloudPrincipal, after: String, limit: Int) async throws
        -> CloudAPI.Page<CloudAPI.Module>

    /// The label code of a scanned label resolved to its module (the QR parse), whichever gateway
    /// of the tenant registered it.
    func module(_ principal: CloudPrincipal, labelCode: String) async throws -> CloudAPI.Module?

    /// What happened with a pairing token of `principal`'s tenant.
    func pairingResult(_ principal: CloudPrincipal, token: String) async throws
        -> Result<CloudAPI.PairingResult, CloudServerFailure>

    /// Bindings of devices of `principal`'s tenant, by device id after `after`.
    func bindings(_ principal: CloudPrincipal, after: String, limit: Int) async throws
        -> CloudAPI.Page<CloudAPI.Binding>

    /// Up to `limit` events of `principal`'s tenant after `cursor` (nil: from the start), in
    /// stream order; nil when this store keeps no event stream (the route answers 404), a
    /// `.failure` for a cursor it did not issue.
    func events(_ principal: CloudPrincipal, after cursor: String?, limit: Int) async throws
        -> Result<CloudAPI.EventPage, CloudServerFailure>?

    /// Whether this store keeps device management (the routes under `/v1.0/iot-03/devices` and
    /// `/v1.0/iot-03/homes`); when false they answer 404 (1108) and ``CloudMutation``'s
    /// device-management cases are never passed to ``mutate(_:by:idempotency:settings:now:)``.
    var managesDevices: Bool { get }

    /// The devices bound in `home` of `principal`'s tenant, by device id after `after`; a
    /// `.failure` (1000) when the tenant has no such home.
    func devices(_ principal: CloudPrincipal, home: String, after: String, limit: Int) async throws
        -> Result<CloudAPI.Page<CloudAPI.Device>, CloudServerFailure>

    /// The devices of `principal`'s tenant among `ids`, in the order of `ids` (unknown ones left out).
    func devices(_ principal: CloudPrincipal, ids: [String]) async throws -> [CloudAPI.Device]

    /// The operation log of a device of `principal`'s tenant, oldest first, after the entry
    /// numbered `after` (0: from the start); a `.failure` (2010) for a device it does not have.
    func deviceLog(_ principal: CloudPrincipal, deviceID: String, after: Int64, limit: Int) async throws
        -> Result<CloudAPI.Page<CloudAPI.Event>, CloudServerFailure>
}

extension CloudServerStore {
    /// No device management (the emulator's store).
    public var managesDevices: Bool { false }

    /// No device management (the emulator's store).
    public func devices(_ principal: CloudPrincipal, home: String, after: String, limit: Int) async throws
        -> Result<CloudAPI.Page<CloudAPI.Device>, CloudServerFailure>
    {
        .failure(.deviceManagementNotOffered)
    }

    /// No device management (the emulator's store).
    public func devices(_ principal: CloudPrincipal, ids: [String]) async throws -> [CloudAPI.Device] { [] }

    /// No device management (the emulator's store).
    public func deviceLog(_ principal: CloudPrincipal, deviceID: String, after: Int64, limit: Int) async throws
        -> Result<CloudAPI.Page<CloudAPI.Event>, CloudServerFailure>
    {
        .failure(.deviceManagementNotOffered)
    }

    /// No event stream (the emulator's store).
    public func events(_ principal: CloudPrincipal, after cursor: String?, limit: Int) async throws
        -> Result<CloudAPI.EventPage, CloudServerFailure>?
    {
        nil
    }
}

/// Who a signed request speaks for: a gateway of a tenant (the emulator has one of each).
public struct CloudPrincipal: Sendable, Hashable {
    /// The tenant's id: modules, homes, tokens and idempotency keys live in it.
    public var tenant: String
    /// The gateway's name within the tenant, named in conflicts and the audit log.
    public var gateway: String
    /// The client id the request was signed with.
    public var clientID: String
    /// What the credential may do.
    public var role: CloudRole

    public init(tenant: String, gateway: String, clientID: String, role: CloudRole = .gateway) {
        self.tenant = tenant
        self.gateway = gateway
        self.clientID = clientID
        self.role = role
    }
}

/// A principal and the signers of its live secrets.
public struct CloudCredential: Sendable {
    public var principal: CloudPrincipal
    /// One per live secret; a request is authentic when any of them verifies it.
    public var signers: [TuyaSigner]

    public init(principal: CloudPrincipal, signers: [TuyaSigner]) {
        self.principal = principal
        self.signers = signers
    }
}

/// A state-changing call, its body already decoded and checked by ``CloudServerRules``.
public enum CloudMutation: Sendable {
    case register(CloudAPI.RegisterRequest)
    case pairingToken(CloudAPI.PairingTokenRequest)
    case bind(CloudAPI.BindRequest)
    case unbind(deviceID: String)
    /// Device management (operators only; a store without it refuses with 1108).
    case transfer(deviceID: String, CloudAPI.TransferRequest)
    case freeze(deviceID: String, CloudAPI.FreezeRequest)
    case delete(deviceID: String)

    /// The effect's name in logs and metrics.
    public var operation: String {
        switch self {
        case .register: "register"
        case .pairingToken: "pairing_token"
        case .bind: "bind"
        case .unbind: "unbind"
        case .transfer: "transfer"
        case .freeze(_, let request): request.frozen ? "freeze" : "unfreeze"
        case .delete: "delete"
        }
    }

    /// Whether it is a device-management change, which only an operator may make.
    public var managesDevices: Bool {
        switch self {
        case .register, .pairingToken, .bind, .unbind: false
        case .transfer, .freeze, .delete: true
        }
    }
}

/// A signed `Idempotency-Key` and the hash of the request it came with (method, path and body).
public struct CloudIdempotency: Sendable {
    public var key: String
    /// Lower-case hex SHA-256 of `"METHOD PATH\n" + body`.
    public var requestHash: String

    public init(key: String, requestHash: String) {
        self.key = key
        self.requestHash = requestHash
    }
}

/// The JSON `result` of a state-changing call.
public enum CloudMutationAnswer: Sendable, Equatable {
    /// Applied now.
    case applied(json: String)
    /// The same key and request were answered before: the first answer, byte for byte.
    case replayed(json: String)

    public var json: String {
        switch self {
        case .applied(let json), .replayed(let json): json
        }
    }
}
