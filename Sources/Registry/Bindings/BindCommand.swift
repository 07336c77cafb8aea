import DeviceIdentity
import NBGWCore

/// Everything the store needs to bind one device. Parsing and label resolution happen before.
public struct BindCommand: Sendable, Equatable {
    /// Who asked over the ingest HTTP API. When a command carries one, the bind records the key's
    /// name and the client's address in its own transaction: on the audit row it writes (migration
    /// v6; a refused bind also links an `ingest_audit` row with the code and message to it), or, for
    /// an unchanged bind, which writes no audit row, in an `ingest_audit` row. One commit per HTTP
    /// bind, and no change without its trail.
    public struct IngestOrigin: Sendable, Equatable {
        /// The API key's name (also the bind's `operator`).
        public var apiKey: String
        /// The client's address as the server saw it (`ip:port`, `[ip]:port` for IPv6).
        public var clientAddress: String

        public init(apiKey: String, clientAddress: String) {
            self.apiKey = apiKey
            self.clientAddress = clientAddress
        }
    }

    public var deviceID: DeviceID
    public var account: String
    public var home: String
    /// A pairing token from `token create`; when nil, one is issued and used in the same transaction.
    public var token: String?
    public var source: BindingSource
    public var `operator`: String?
    /// Set by the ingest API only; nil for the CLI, CSV batches and the daemon.
    public var ingest: IngestOrigin?

    public init(
        deviceID: DeviceID,
        account: String,
        home: String,
        token: String? = nil,
        source: BindingSource,
        operator: String? = nil,
        ingest: IngestOrigin? = nil
    ) {
        self.deviceID = deviceID
        self.account = account
        self.home = home
        self.token = token
        self.source = source
        self.operator = `operator`
        self.ingest = ingest
    }
}
