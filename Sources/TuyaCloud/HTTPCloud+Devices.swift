import Cloud
import NBGWCore

/// Device management on a cloud that offers it (nbgw-cloud; docs/cloud-api.yaml, "Device
/// management"), for operators' tools. Changes need an operator's credential and, like every
/// change made here, are tried once without an idempotency key.
extension HTTPCloud {
    /// One device's details: registration, frozen or not, binding.
    public func device(_ deviceID: String) async throws(NBGWError) -> CloudAPI.Device {
        try await nbgw { () async throws(TuyaCloudError) in
            let segment = try HTTPCloud.pathSegment(deviceID, what: "device id")
            return try await client.perform(
                TuyaOpenAPIClient.Call(
                    method: "GET",
                    path: CloudAPI.devicePath(segment),
                    operation: "read device \(deviceID)",
                    logPath: CloudAPI.devicePath(segment)
                )
            )
        }
    }

    /// Details of up to ``CloudAPI/deviceDetailsLimit`` devices in one call.
    public func devices(_ deviceIDs: [String]) async throws(NBGWError) -> CloudAPI.DeviceDetails {
        try await nbgw { () async throws(TuyaCloudError) in
            var segments: [String] = []
            for id in deviceIDs { segments.append(try HTTPCloud.pathSegment(id, what: "device id")) }
            return try await client.perform(
                TuyaOpenAPIClient.Call(
                    method: "GET",
                    path: CloudAPI.devicesPath,
                    query: [("device_ids", segments.joined(separator: ","))],
                    operation: "read \(deviceIDs.count) devices",
                    logPath: CloudAPI.devicesPath
                )
            )
        }
    }

    /// Every device bound in `home` (all pages).
    public func devices(inHome home: String) async throws(NBGWError) -> [CloudAPI.Device] {
        try await nbgw { () async throws(TuyaCloudError) in
            let segment = try HTTPCloud.pathSegment(home, what: "home")
            return try await allPages(CloudAPI.homeDevicesPath(segment), operation: "list the devices of home \(home)")
        }
    }

    /// A device's whole operation log, oldest first.
    public func deviceLog(_ deviceID: String) async throws(NBGWError) -> [CloudAPI.Event] {
        try await nbgw { () async throws(TuyaCloudError) in
            let segment = try HTTPCloud.pathSegment(deviceID, what: "device id")
            return try await allPages(CloudAPI.deviceLogsPath(segment), operation: "read the log of device \(deviceID)")
        }
    }

    /// Moves a bound device from the owner named in `request` to another account's home.
    public func transferDevice(
        _ deviceID: String,
        _ request: CloudAPI.TransferRequest,
        key: String? = nil
    ) async throws(NBGWError) -> CloudAPI.DeviceChangeResult {
        try await nbgw { () async throws(TuyaCloudError) in
            let segment = try HTTPCloud.pathSegment(deviceID, what: "device id")
            return try await client.perform(
                try call(
                    "POST",
                    CloudAPI.deviceTransferPath(segment),
                    body: request,
                    key: key,
                    operation: "transfer device \(deviceID)"
                ),
                policy: key == nil ? .noRetries : nil
            )
        }
    }

    /// Freezes (`frozen: true`) or unfreezes a device.
    public func freezeDevice(
        _ deviceID: String,
        frozen: Bool,
        reason: String,
        key: String? = nil
    ) async throws(NBGWError) -> CloudAPI.DeviceChangeResult {
        try await nbgw { () async throws(TuyaCloudError) in
            let segment = try HTTPCloud.pathSegment(deviceID, what: "device id")
            return try await client.perform(
                try call(
                    "POST",
                    CloudAPI.deviceFreezePath(segment),
                    body: CloudAPI.FreezeRequest(frozen: frozen, reason: reason),
                    key: key,
                    operation: "\(frozen ? "freeze" : "unfreeze") device \(deviceID)"
                ),
                policy: key == nil ? .noRetries : nil
            )
        }
    }

    /// Deletes a device's registration and binding (its log stays).
    public func deleteDevice(
        _ deviceID: String,
        key: String? = nil
    ) async throws(NBGWError)
        -> CloudAPI.DeviceChangeResult
    {
        try await nbgw { () async throws(TuyaCloudError) in
            let segment = try HTTPCloud.pathSegment(deviceID, what: "device id")
            return try await client.perform(
                TuyaOpenAPIClient.Call(
                    method: "DELETE",
                    path: CloudAPI.devicePath(segment),
                    idempotencyKey: key,
                    operation: "delete device \(deviceID)",
                    logPath: CloudAPI.devicePath(segment)
                ),
                policy: key == nil ? .noRetries : nil
            )
        }
    }
}
