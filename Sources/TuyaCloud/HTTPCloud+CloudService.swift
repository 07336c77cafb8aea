import Cloud
import DeviceIdentity
import NBGWCore
import Pairing

/// ``Cloud/CloudService`` over the typed calls of `HTTPCloud+Operations.swift`: each maps the
/// cloud's failure to a ``Cloud/CloudFailure`` that says whether the work may be sent again.
extension HTTPCloud {
    /// Registers a module (idempotent by IMEI; the attempt's key makes a resend after a crash get
    /// the first answer). The ids the store already holds are sent as the ids to keep.
    public func register(
        _ module: CloudModule,
        attempt: CloudAttempt
    ) async throws(CloudFailure)
        -> CloudRegisteredModule
    {
        let identity = module.identity
        let request = CloudAPI.RegisterRequest(
            imei: identity.imei.digits,
            imsi: identity.imsi?.digits,
            iccid: identity.iccid?.value,
            manufacturer: identity.manufacturer,
            model: identity.model,
            firmware: identity.firmware,
            productID: identity.productID,
            deviceID: module.knownDeviceID,
            labelCode: module.knownLabelCode
        )
        let result = try await failing { () async throws(TuyaCloudError) in
            try await requestRegister(request, key: attempt.idempotencyKey, policy: policy(attempt))
        }
        guard let deviceID = try? DeviceID(result.deviceID), (4...64).contains(result.labelCode.utf8.count) else {
            throw TuyaCloudError(
                .malformedResponse("device id or label code outside nbgw's rules"),
                operation: "register IMEI \(identity.imei)",
                endpoint: "POST \(configuration.baseURL)\(CloudAPI.modulesPath)"
            ).cloudFailure
        }
        return CloudRegisteredModule(deviceID: deviceID, labelCode: result.labelCode, labelPayload: result.qrcode)
    }

    /// The cloud's QR parse (§1.1); an answer other than the NB-IoT bind action is `NOT_NB_DEVICE`.
    public func resolveLabel(_ label: LabelReference, attempt: CloudAttempt) async throws(CloudFailure)
        -> CloudResolvedLabel
    {
        let parsed = try await failing { () async throws(TuyaCloudError) in
            try await requestParseQR(label.url, policy: policy(attempt))
        }
        guard parsed.actionName == BindingRules.nbBindActionName else {
            throw CloudFailure(
                .refused,
                NBGWError(
                    .notNBDevice,
                    "the cloud says label \(label.url.escapedForDisplay()) is a "
                        + "\(parsed.actionName.escapedForDisplay()) action, not an NB-IoT bind; pair it with the tool "
                        + "for its kind"
                )
            )
        }
        do {
            let deviceID = try DeviceID(parsed.actionData.id)
            // The identity only when it parses: a label still resolves to its device without it.
            var identity = (parsed.actionData.imei).flatMap { try? IMEI($0) }.map { ModuleIdentity(imei: $0) }
            identity?.productID = parsed.actionData.productID
            return CloudResolvedLabel(deviceID: deviceID, identity: identity)
        } catch {
            throw CloudFailure(
                .refused,
                NBGWError(
                    .internalError,
                    "the cloud resolved label \(label.url.escapedForDisplay()) to an unusable device id: \(error)"
                )
            )
        }
    }

    /// A bind takes a pairing token of the home, then binds with it; an unbind drops the binding
    /// (a device the cloud has no binding for is already where the unbind wants it). Both carry
    /// keys derived from the attempt's, so a resend after a crash gets the same token and answer.
    ///
    /// Why token generations: a token that expired while the cloud was unreachable cannot be
    /// revived; the bind's refusal proves it did not take effect, so a new token under a new key
    /// is safe.
    public func send(_ change: CloudBindingChange, attempt: CloudAttempt) async throws(CloudFailure) -> String {
        switch change.action {
        case .bind:
            guard let account = change.account, let home = change.home else {
                throw CloudFailure(
                    .refused,
                    NBGWError(.internalError, "a cloud bind needs an account and a home (\(change))")
                )
            }
            var lastRefusal: TuyaCloudError?
            for generation in 1...3 {
                do throws(TuyaCloudError) {
                    let token = try await requestPairingToken(
                        home: home,
                        account: account,
                        key: "\(attempt.idempotencyKey).t\(generation)",
                        policy: policy(attempt)
                    )
                    let result = try await requestBind(
                        deviceID: change.deviceID,
                        account: account,
                        home: home,
                        token: token.token,
                        key: "\(attempt.idempotencyKey).b\(generation)",
                        policy: policy(attempt)
                    )
                    return answer(["deviceId": result.deviceID, "status": result.status])
                } catch
                    where error.code == TuyaErrorCode.pairingTokenExpired
                    || error.code == TuyaErrorCode.pairingTokenInvalid
                {
                    lastRefusal = error
                } catch {
                    throw error.cloudFailure
                }
            }
            // Three fresh tokens refused in a row: something is off with time, not with the bind.
            var transient = lastRefusal!
            transient.kind = .timedOut("three pairing tokens in a row were refused as expired or invalid")
            throw transient.cloudFailure
        case .unbind:
            do throws(TuyaCloudError) {
                let result = try await requestUnbind(
                    deviceID: change.deviceID,
                    key: attempt.idempotencyKey,
                    policy: policy(attempt)
                )
                return answer(["deviceId": result.deviceID, "status": result.status])
            } catch  where error.code == TuyaErrorCode.deviceNotBound || error.code == TuyaErrorCode.deviceNotExist {
                return answer(["deviceId": change.deviceID, "status": "not-bound"])
            } catch {
                throw error.cloudFailure
            }
        }
    }

    /// Every module and binding the cloud holds (all pages); account = the cloud's `uid`, home =
    /// its `asset_id`.
    public func inventory(of modules: [CloudInventory.Module]) async throws(CloudFailure) -> CloudInventory {
        try await failing { () async throws(TuyaCloudError) in
            let listed: [CloudAPI.Module] = try await allPages(
                CloudAPI.modulesPath,
                operation: "list the cloud's modules"
            )
            let bindings: [CloudAPI.Binding] = try await allPages(
                CloudAPI.bindingsPath,
                operation: "list the cloud's bindings"
            )
            return CloudInventory(
                modules: listed.map {
                    CloudInventory.Module(
                        deviceID: $0.deviceID,
                        imei: $0.imei,
                        otherGateway: $0.origin == CloudAPI.Module.otherGateway
                    )
                },
                bindings: bindings.map {
                    CloudInventory.Binding(deviceID: $0.deviceID, account: $0.uid, home: $0.assetID)
                },
                isComplete: true
            )
        }
    }

    /// Runs typed calls and maps their failure.
    func failing<Result>(_ body: () async throws(TuyaCloudError) -> Result) async throws(CloudFailure) -> Result {
        do {
            return try await body()
        } catch {
            throw error.cloudFailure
        }
    }

    /// The cloud's answer as the outbox keeps it. Why `try!`: a dictionary of strings always encodes.
    private func answer(_ object: [String: String]) -> String {
        try! CloudJSON.string(object)
    }
}

extension TuyaCloudError {
    /// The seam's view of this failure: cancelled; a configuration every call would trip on;
    /// transient (the cloud unreachable, slow or overloaded); or refused for good.
    public var cloudFailure: CloudFailure {
        let failureKind: CloudFailure.Kind =
            if case .cancelled = kind {
                .cancelled
            } else if isConfigurationProblem {
                .misconfigured
            } else if isTransient {
                .unavailable
            } else {
                .refused
            }
        return CloudFailure(failureKind, nbgwError)
    }
}
