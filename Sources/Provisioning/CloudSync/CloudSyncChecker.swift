import Cloud
import NBGWCore
import Registry

/// Compares the local store with the cloud's view (`nbgw cloud sync --check`), for any cloud that
/// syncs: registered modules by IMEI and device id, bindings by device (account and, where the
/// cloud has homes, home), plus outbox work not yet sent or refused. Devices with unsent outbox
/// work are reported as `sync-pending` only: their difference is expected until the drainer runs.
/// A cloud that can only be asked about the store's modules (``Cloud/CloudInventory/isComplete``
/// false) reports nothing "only in the cloud".
public enum CloudSyncChecker {
    public static func check(registry: Registry, cloud: any CloudService) async throws(NBGWError) -> CloudSyncReport {
        let localDevices = try pages { (after) throws(NBGWError) in
            try registry.directory.devices(limit: 1000, after: after)
        } key: {
            $0.deviceID
        }
        let localBindings = try pages { (after) throws(NBGWError) in
            try registry.bindings.list(limit: 1000, after: after)
        } key: {
            $0.deviceID
        }
        let credentials: [String: String]
        do {
            credentials = try registry.directory.moduleCredentials()
        } catch  where error.code == .secretsKeyMissing {
            throw NBGWError(
                .secretsKeyMissing,
                "the sync check hands the cloud each module's credential, and they are sealed under the store's "
                    + "secrets key, which this process does not hold (\(registry.secretsKey)); run the check as root "
                    + "(`sudo nbgw cloud sync --check`), which reads the key (docs/operations.md, \"Module "
                    + "credentials\")"
            )
        }
        let inventory: CloudInventory
        do {
            inventory = try await cloud.inventory(
                of: localDevices.map {
                    CloudInventory.Module(deviceID: $0.deviceID, imei: $0.imei, credential: credentials[$0.imei])
                }
            )
        } catch {
            throw error.error
        }
        let cloudModules = inventory.modules
        let cloudBindings = inventory.bindings
        let unfinished = try registry.outbox.entries(states: [.pending, .inflight], limit: 100_000)
        let dead = try registry.outbox.entries(states: [.dead], limit: 100_000).filter {
            $0.lastErrorCode != "SUPERSEDED"
        }

        var divergences: [CloudSyncDivergence] = []
        var waiting = Set<String>()
        for entry in unfinished {
            waiting.insert(entry.subject)
            divergences.append(
                CloudSyncDivergence(
                    kind: .syncPending,
                    deviceID: entry.operation == .register ? nil : entry.subject,
                    imei: entry.operation == .register ? entry.subject : nil,
                    local: "\(entry.operation.rawValue) (outbox #\(entry.id), \(entry.attempts) attempts)",
                    detail: "not yet sent\(entry.lastError.map { " (last error: \($0))" } ?? ""); run `nbgw cloud sync`"
                )
            )
        }
        for entry in dead {
            divergences.append(
                CloudSyncDivergence(
                    kind: .syncFailed,
                    deviceID: entry.operation == .register ? nil : entry.subject,
                    imei: entry.operation == .register ? entry.subject : nil,
                    local: "\(entry.operation.rawValue) (outbox #\(entry.id))",
                    detail: "the cloud refused it: \(entry.lastErrorCode ?? "?"): \(entry.lastError ?? "")"
                )
            )
        }

        let cloudByIMEI = Dictionary(cloudModules.map { ($0.imei, $0) }, uniquingKeysWith: { first, _ in first })
        let localIMEIs = Set(localDevices.map(\.imei))
        for device in localDevices where !waiting.contains(device.imei) && !waiting.contains(device.deviceID) {
            guard let module = cloudByIMEI[device.imei] else {
                divergences.append(
                    CloudSyncDivergence(
                        kind: .deviceMissingInCloud,
                        deviceID: device.deviceID,
                        imei: device.imei,
                        local: device.deviceID,
                        detail: "registered here but not in the cloud; register it again (`nbgw devices register "
                            + "--imei \(device.imei)`) with that cloud configured"
                    )
                )
                continue
            }
            if module.deviceID != device.deviceID {
                divergences.append(
                    CloudSyncDivergence(
                        kind: .deviceIDMismatch,
                        deviceID: device.deviceID,
                        imei: device.imei,
                        local: device.deviceID,
                        cloud: module.deviceID,
                        detail: "the same IMEI has another device id in the cloud; labels printed from one side do "
                            + "not resolve on the other. Keep one id (re-register locally or in the cloud)"
                    )
                )
            }
        }
        // A fleet's other gateways' modules are theirs: only this gateway's own can be missing here.
        for module in cloudModules
        where inventory.isComplete && !module.otherGateway && !localIMEIs.contains(module.imei)
            && !waiting.contains(module.imei)
        {
            divergences.append(
                CloudSyncDivergence(
                    kind: .deviceOnlyInCloud,
                    deviceID: module.deviceID,
                    imei: module.imei,
                    cloud: module.deviceID,
                    detail: "registered in the cloud but not here (another gateway's module, or a lost store)"
                )
            )
        }

        let cloudByDevice = Dictionary(cloudBindings.map { ($0.deviceID, $0) }, uniquingKeysWith: { first, _ in first })
        let localBound = Set(localBindings.map(\.deviceID))
        for binding in localBindings where !waiting.contains(binding.deviceID) {
            let local = "\(binding.account)/\(binding.home)"
            guard let remote = cloudByDevice[binding.deviceID] else {
                divergences.append(
                    CloudSyncDivergence(
                        kind: .bindingMissingInCloud,
                        deviceID: binding.deviceID,
                        imei: binding.imei,
                        local: local,
                        detail: "bound here but not in the cloud; unbind and bind again to queue it, or check the "
                            + "failed outbox rows"
                    )
                )
                continue
            }
            if remote.account != binding.account || (remote.home.map { $0 != binding.home } ?? false) {
                divergences.append(
                    CloudSyncDivergence(
                        kind: .bindingDiffers,
                        deviceID: binding.deviceID,
                        imei: binding.imei,
                        local: local,
                        cloud: remote.described,
                        detail: "bound to different owners; the device's owner must unbind it on the wrong side"
                    )
                )
            }
        }
        for remote in cloudBindings
        where inventory.isComplete && !localBound.contains(remote.deviceID) && !waiting.contains(remote.deviceID) {
            divergences.append(
                CloudSyncDivergence(
                    kind: .bindingOnlyInCloud,
                    deviceID: remote.deviceID,
                    cloud: remote.described,
                    detail: "bound in the cloud but not here; bind it here too, or unbind it in the cloud"
                )
            )
        }
        return CloudSyncReport(
            localDevices: localDevices.count,
            cloudDevices: cloudModules.count,
            localBindings: localBindings.count,
            cloudBindings: cloudBindings.count,
            divergences: divergences
        )
    }

    /// Reads a keyset-paged registry listing to the end.
    static func pages<Item>(
        _ fetch: (String) throws(NBGWError) -> [Item],
        key: (Item) -> String
    ) throws(NBGWError) -> [Item] {
        var items: [Item] = []
        var after = ""
        while true {
            let page = try fetch(after)
            items += page
            guard page.count == 1000, let last = page.last else { return items }
            after = key(last)
        }
    }
}

extension CloudInventory.Binding {
    /// `alice/lab`, or `alice` for a cloud without homes.
    var described: String { home.map { "\(account)/\($0)" } ?? account }
}
