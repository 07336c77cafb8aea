import TuyaCloud

extension CloudServerHandler {
    /// Device management (docs/cloud-api.yaml, "Device management"): the routes under
    /// `/v1.0/iot-03/devices` and `/v1.0/iot-03/homes/{home}/devices`. Reads are open to every
    /// credential of the tenant; changes (transfer, freeze, delete) take an operator's
    /// (``CloudRole``) and run behind their idempotency key like every other change. A store
    /// without device management answers 404 (1108) to all of them.
    func devices(
        _ request: CloudServerRequest,
        _ outcome: Outcome,
        principal: CloudPrincipal,
        now: Int64
    ) async -> Outcome {
        guard store.managesDevices else { return failed(outcome, .deviceManagementNotOffered) }
        let path = request.path
        if path == CloudAPI.devicesPath {
            let ids: [String]
            switch CloudServerRules.deviceIDs(request.queryValue("device_ids")) {
            case .failure(let failure): return failed(outcome, failure)
            case .success(let value): ids = value
            }
            return await run(outcome) {
                let found = try await store.devices(principal, ids: ids)
                let known = Set(found.map(\.deviceID))
                return .success(CloudAPI.DeviceDetails(list: found, missing: ids.filter { !known.contains($0) }))
            }
        }
        if path.hasPrefix(CloudAPI.homesPrefix) {
            // `/v1.0/iot-03/homes/{home}/devices`, the only route there (the route table said so).
            let home = CloudServerRequest.segment(path.dropFirst(CloudAPI.homesPrefix.count).dropLast("/devices".count))
            guard CloudServerRules.isName(home) else {
                return failed(outcome, .invalid("home must be 1 to 64 printable characters"))
            }
            let paging: (after: String, limit: Int)
            switch CloudServerHandler.paging(request) {
            case .failure(let failure): return failed(outcome, failure)
            case .success(let value): paging = value
            }
            return await run(outcome) {
                try await store.devices(principal, home: home, after: paging.after, limit: paging.limit)
            }
        }
        // `/v1.0/iot-03/devices/{device_id}[/transfer|/freeze|/logs]`.
        let rest = path.dropFirst(CloudAPI.devicesPath.count + 1).split(
            separator: "/",
            omittingEmptySubsequences: false
        )
        let deviceID = CloudServerRequest.segment(rest[0])
        guard CloudServerRules.isDeviceID(deviceID) else {
            return failed(outcome, .invalid("device_id must be 1 to 64 of A-Z a-z 0-9 _ . -"))
        }
        switch (request.method, rest.count == 2 ? String(rest[1]) : nil) {
        case ("GET", nil):
            return await run(outcome) { () async throws -> Result<CloudAPI.Device, CloudServerFailure> in
                guard let device = try await store.devices(principal, ids: [deviceID]).first else {
                    return .failure(CloudServerRules.unknownDevice)
                }
                return .success(device)
            }
        case ("GET", "logs"):
            let paging: (after: String, limit: Int)
            switch CloudServerHandler.paging(request) {
            case .failure(let failure): return failed(outcome, failure)
            case .success(let value): paging = value
            }
            // The log's row keys are entry numbers: absent or a whole number.
            guard let after = paging.after.isEmpty ? 0 : Int64(paging.after), after >= 0 else {
                return failed(outcome, .invalid("last_row_key must be a whole number a page of this log gave"))
            }
            return await run(outcome) {
                try await store.deviceLog(principal, deviceID: deviceID, after: after, limit: paging.limit)
            }
        case ("DELETE", nil):
            guard principal.role.managesDevices else { return failed(outcome, .operatorsOnly) }
            return await mutating(request, outcome, principal: principal, now: now) { (_: EmptyResult) in
                .success(.delete(deviceID: deviceID))
            }
        case ("POST", "transfer"):
            guard principal.role.managesDevices else { return failed(outcome, .operatorsOnly) }
            return await mutating(request, outcome, principal: principal, now: now) {
                (body: CloudAPI.TransferRequest) in
                CloudServerRules.problem(in: body).map { .failure($0) } ?? .success(.transfer(deviceID: deviceID, body))
            }
        case ("POST", "freeze"):
            guard principal.role.managesDevices else { return failed(outcome, .operatorsOnly) }
            return await mutating(request, outcome, principal: principal, now: now) { (body: CloudAPI.FreezeRequest) in
                CloudServerRules.problem(in: body).map { .failure($0) } ?? .success(.freeze(deviceID: deviceID, body))
            }
        default:
            return failed(
                outcome,
                CloudServerFailure(TuyaErrorCode.systemError, "system error: no handler for \(request.method) \(path)")
            )
        }
    }
}
