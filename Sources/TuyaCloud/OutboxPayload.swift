import DeviceIdentity

/// What an outbox row asks the cloud to do, stored as JSON in `cloud_outbox.payload`.
enum OutboxPayload {
    /// `register`: the module's identity and, when the IMEI is already known locally, the ids to keep.
    struct Register: Codable, Sendable, Equatable {
        var identity: ModuleIdentity
        var proposedDeviceID: String?
        var proposedLabelCode: String?
    }

    /// `bind`: the binding the cloud must hold (account = cloud `uid`, home = cloud `asset_id`).
    struct Bind: Codable, Sendable, Equatable {
        var deviceID: String
        var account: String
        var home: String
    }

    /// `unbind`: the device whose binding the cloud must drop (and what it was, for reports).
    struct Unbind: Codable, Sendable, Equatable {
        var deviceID: String
        var account: String?
        var home: String?
    }
}
