import Cloud
import DeviceIdentity
import NBGWCore
import Pairing

/// ``Cloud/CloudService`` over Kii's REST calls; each maps Kii's failure to a
/// ``Cloud/CloudFailure`` that says whether the work may be sent again.
extension KiiCloud {
    /// Onboards the module by owner (`POST {site}/thing-if/apps/{appID}/onboardings`). Onboarding
    /// the same IMEI with the same password again answers the same thing id, so a resend after a
    /// crash or a lost answer has one effect.
    public func register(
        _ module: CloudModule,
        attempt: CloudAttempt
    ) async throws(CloudFailure)
        -> CloudRegisteredModule
    {
        let identity = module.identity
        let imei = identity.imei.digits
        guard let secret = module.secret else {
            throw CloudFailure(
                .refused,
                NBGWError(.internalError, "onboarding IMEI \(imei) with Kii needs the module's thing password")
            )
        }
        var properties: [String: String] = [:]
        properties["_vendor"] = identity.manufacturer
        properties["_productName"] = identity.model
        properties["_firmwareVersion"] = identity.firmware
        properties["imsi"] = identity.imsi?.digits
        properties["iccid"] = identity.iccid?.value
        properties["productID"] = identity.productID
        let request = KiiAPI.OnboardingRequest(
            vendorThingID: imei,
            thingPassword: secret,
            owner: configuration.owner.typedID,
            thingType: KiiCloud.thingType(model: identity.model),
            thingProperties: properties
        )
        let call = KiiHTTPClient.Call(
            method: "POST",
            path: KiiAPI.onboardings(configuration.appID),
            token: configuration.ownerToken,
            principal: .owner,
            contentType: KiiAPI.onboardingMediaType,
            body: KiiAPI.encode(request),
            operation: "onboard IMEI \(imei)"
        )
        let result: KiiAPI.OnboardingResponse
        do throws(KiiCallError) {
            let answer = try await client.perform(call, policy: policy(attempt))
            result = try KiiHTTPClient.decode(
                KiiAPI.OnboardingResponse.self,
                answer,
                call: call,
                site: configuration.site
            )
        } catch  where error.status == 403 && (error.errorCode ?? "").uppercased().contains("PASSWORD") {
            throw CloudFailure(
                .refused,
                NBGWError(
                    .deviceAlreadyBound,
                    "Kii app \(configuration.appID) already has a thing for IMEI \(imei) with another password "
                        + "(\(error.kindDescription)): another gateway onboarded it, or this gateway's store was "
                        + "replaced. Its owner must remove the thing in Kii before this gateway can onboard it"
                )
            )
        } catch {
            throw error.cloudFailure
        }
        // Kii's thing ids ("th." + hex groups) are within nbgw's device id rules; one that is not
        // is refused rather than rewritten, so the two sides keep one id.
        guard let deviceID = try? DeviceID(result.thingID), KiiConfiguration.isToken(result.accessToken) else {
            throw KiiCallError(
                .malformedResponse(
                    "thing id \(result.thingID.escapedSnippet) is outside nbgw's device id rules (1 to 64 of "
                        + "A-Z a-z 0-9 _ . -) or the access token is malformed"
                ),
                operation: call.operation,
                endpoint: "POST \(configuration.site)\(call.path)",
                principal: .owner
            ).cloudFailure
        }
        // A module the store already knows by another id keeps it; the thing's id goes with its
        // token (KiiThingCredential).
        let known = module.knownDeviceID.flatMap { try? DeviceID($0) }
        let kept = known ?? deviceID
        return CloudRegisteredModule(
            deviceID: kept,
            labelCode: imei,
            labelPayload: configuration.labelBase + imei,
            credential: KiiThingCredential(thingID: deviceID.rawValue, token: result.accessToken)
                .stored(deviceID: kept.rawValue)
        )
    }

    /// Kii has no label service: a label the store does not hold cannot be resolved here.
    public func resolveLabel(_ label: LabelReference, attempt: CloudAttempt) async throws(CloudFailure)
        -> CloudResolvedLabel
    {
        guard label.base.lowercased() == configuration.labelBase.lowercased() else {
            throw CloudFailure(.refused, CloudLabels.foreign(label, base: configuration.labelBase))
        }
        let register =
            (try? IMEI(label.code)).map { "`nbgw devices register --imei \($0)` with this Kii cloud configured" }
            ?? "`nbgw devices register --imei IMEI`"
        throw CloudFailure(
            .refused,
            NBGWError(
                .unknownDevice,
                "label \(label.url.escapedForDisplay()) names a module this gateway has not onboarded, and Kii "
                    + "Thing-IF has no label service to ask; register the module here first (\(register)), or bind "
                    + "it at the gateway that onboarded it"
            )
        )
    }

    /// A bind makes the account's Kii user an owner of the thing; an unbind removes it. Both act
    /// as the thing (its access token from the registration). Adding an owner that is one already
    /// and removing one that is not are done, not failures: a resend has one effect.
    public func send(_ change: CloudBindingChange, attempt: CloudAttempt) async throws(CloudFailure) -> String {
        guard let credential = KiiThingCredential(stored: change.moduleCredential, deviceID: change.deviceID) else {
            throw CloudFailure(
                .refused,
                NBGWError(
                    .unknownDevice,
                    "the store holds no Kii access token for device \(change.deviceID) (registered with another "
                        + "cloud?): register the module with this Kii app (`nbgw devices register --imei IMEI`), then "
                        + "unbind and bind it again"
                )
            )
        }
        switch change.action {
        case .bind:
            guard let account = change.account else {
                throw CloudFailure(.refused, NBGWError(.internalError, "a Kii bind needs an account (\(change))"))
            }
            guard let userID = try await userID(loginName: account, attempt: attempt) else {
                throw CloudFailure(
                    .refused,
                    NBGWError(
                        .unknownAccount,
                        "Kii app \(configuration.appID) has no user with login name \(account.escapedForDisplay()), "
                            + "so device \(change.deviceID) cannot be given to it; create that user in the Kii app "
                            + "(its login name is the nbgw account name), then unbind and bind again"
                    )
                )
            }
            let added = try await addOwner(
                userID,
                account: account,
                thingID: credential.thingID,
                token: credential.token,
                password: change.moduleSecret,
                attempt
            )
            return KiiCloud.answer([
                "thingID": credential.thingID, "owner": "user:\(userID)",
                "status": added ? "owner-added" : "already-owner",
            ])
        case .unbind:
            if let account = change.account {
                guard let userID = try await userID(loginName: account, attempt: attempt) else {
                    return KiiCloud.answer(["thingID": credential.thingID, "status": "no-such-user"])
                }
                let removed = try await removeOwner(
                    userID,
                    thingID: credential.thingID,
                    token: credential.token,
                    attempt
                )
                return KiiCloud.answer([
                    "thingID": credential.thingID, "owner": "user:\(userID)",
                    "status": removed ? "owner-removed" : "not-owner",
                ])
            }
            // Whom it was bound to is unknown: every user owner but the gateway's own goes.
            let current = try await owners(
                thingID: credential.thingID,
                token: credential.token,
                principal: .thing,
                attempt
            )
            var removed: [String] = []
            for userID in current.users ?? [] where !isGatewayOwner(userID) {
                if try await removeOwner(userID, thingID: credential.thingID, token: credential.token, attempt) {
                    removed.append(userID)
                }
            }
            return KiiCloud.answer([
                "thingID": credential.thingID, "status": "owners-removed", "removed": removed.joined(separator: ","),
            ])
        }
    }

    /// The store's modules as Kii knows them (looked up by vendor thing id = IMEI) and their user
    /// owners other than the gateway's own (by login name). Kii cannot list a gateway's things, so
    /// nothing "only in the cloud" can be told (``Cloud/CloudInventory/isComplete`` false).
    public func inventory(of modules: [CloudInventory.Module]) async throws(CloudFailure) -> CloudInventory {
        let attempt = CloudAttempt(idempotencyKey: "inventory", patience: .background)
        var found: [CloudInventory.Module] = []
        var bindings: [CloudInventory.Binding] = []
        var loginNames: [String: String] = [:]
        for module in modules {
            let call = KiiHTTPClient.Call(
                method: "GET",
                path: KiiAPI.thing(configuration.appID, vendorThingID: module.imei),
                token: configuration.ownerToken,
                principal: .owner,
                operation: "read the thing of IMEI \(module.imei)"
            )
            let thing: KiiAPI.Thing
            do throws(KiiCallError) {
                let answer = try await client.perform(call, policy: policy(attempt))
                thing = try KiiHTTPClient.decode(KiiAPI.Thing.self, answer, call: call, site: configuration.site)
            } catch  where error.status == 404 && error.errorCode == "THING_NOT_FOUND" {
                continue
            } catch {
                throw error.cloudFailure
            }
            // The store's device id for the thing it mapped to it, Kii's id for any other thing.
            let mapped = KiiThingCredential(stored: module.credential, deviceID: module.deviceID)
            let deviceID = mapped?.thingID == thing.thingID ? module.deviceID : thing.thingID
            found.append(CloudInventory.Module(deviceID: deviceID, imei: thing.vendorThingID))
            let current = try await owners(
                thingID: thing.thingID,
                token: configuration.ownerToken,
                principal: .owner,
                attempt
            )
            for userID in current.users ?? [] where !isGatewayOwner(userID) {
                if loginNames[userID] == nil {
                    loginNames[userID] = try await loginName(userID: userID, attempt: attempt) ?? "user:\(userID)"
                }
                bindings.append(
                    CloudInventory.Binding(deviceID: deviceID, account: loginNames[userID]!, home: nil)
                )
            }
        }
        return CloudInventory(modules: found, bindings: bindings, isComplete: false)
    }

    // MARK: Calls

    func isGatewayOwner(_ userID: String) -> Bool {
        configuration.owner.kind == .user && configuration.owner.id == userID
    }

    /// The Kii user whose login name is the nbgw account name; nil when there is none.
    func userID(loginName: String, attempt: CloudAttempt) async throws(CloudFailure) -> String? {
        let call = KiiHTTPClient.Call(
            method: "GET",
            path: KiiAPI.user(configuration.appID, loginName: loginName),
            token: configuration.ownerToken,
            principal: .owner,
            operation: "look up the Kii user of account \(loginName.escapedSnippet)"
        )
        do throws(KiiCallError) {
            let answer = try await client.perform(call, policy: policy(attempt))
            let user = try KiiHTTPClient.decode(KiiAPI.User.self, answer, call: call, site: configuration.site)
            guard KiiOwner.isID(user.userID) else {
                throw KiiCallError(
                    .malformedResponse("user id \(user.userID.escapedSnippet) is not a Kii id"),
                    operation: call.operation,
                    endpoint: "GET \(configuration.site)\(call.path)",
                    principal: .owner
                )
            }
            return user.userID
        } catch  where error.status == 404 && error.errorCode == "USER_NOT_FOUND" {
            return nil
        } catch {
            throw error.cloudFailure
        }
    }

    func loginName(userID: String, attempt: CloudAttempt) async throws(CloudFailure) -> String? {
        let call = KiiHTTPClient.Call(
            method: "GET",
            path: KiiAPI.user(configuration.appID, userID: userID),
            token: configuration.ownerToken,
            principal: .owner,
            operation: "read Kii user \(userID)"
        )
        do throws(KiiCallError) {
            let answer = try await client.perform(call, policy: policy(attempt))
            return try KiiHTTPClient.decode(KiiAPI.User.self, answer, call: call, site: configuration.site).loginName
        } catch  where error.status == 404 && error.errorCode == "USER_NOT_FOUND" {
            return nil
        } catch {
            throw error.cloudFailure
        }
    }

    /// True when the user became an owner, false when it was one already.
    func addOwner(
        _ userID: String,
        account: String,
        thingID: String,
        token: String,
        password: String?,
        _ attempt: CloudAttempt
    ) async throws(CloudFailure) -> Bool {
        let call = KiiHTTPClient.Call(
            method: "POST",
            path: KiiAPI.ownership(configuration.appID, thingID: thingID),
            token: token,
            principal: .thing,
            contentType: KiiAPI.ownershipRequestMediaType,
            body: KiiAPI.encode(KiiAPI.OwnershipRequest(userID: userID, thingPassword: password)),
            operation: "make account \(account.escapedSnippet) (Kii user \(userID)) an owner of device \(thingID)"
        )
        do throws(KiiCallError) {
            _ = try await client.perform(call, policy: policy(attempt))
            return true
        } catch  where error.status == 409 && error.errorCode == "THING_OWNERSHIP_ALREADY_EXISTS" {
            return false
        } catch  where error.status == 404 && error.errorCode == "THING_NOT_FOUND" {
            throw CloudFailure(
                .refused,
                NBGWError(
                    .unknownDevice,
                    "Kii app \(configuration.appID) has no thing \(thingID) (\(error.kindDescription)); register the "
                        + "module with this Kii app again (`nbgw devices register --imei IMEI`), then unbind and bind "
                        + "it again"
                )
            )
        } catch {
            throw error.cloudFailure
        }
    }

    /// True when the user was an owner and is no more, false when it was not one (or the thing is
    /// gone): either way it is not an owner now.
    func removeOwner(
        _ userID: String,
        thingID: String,
        token: String,
        _ attempt: CloudAttempt
    ) async throws(CloudFailure) -> Bool {
        let call = KiiHTTPClient.Call(
            method: "DELETE",
            path: KiiAPI.userOwnership(configuration.appID, thingID: thingID, userID: userID),
            token: token,
            principal: .thing,
            operation: "remove Kii user \(userID) from the owners of device \(thingID)"
        )
        do throws(KiiCallError) {
            _ = try await client.perform(call, policy: policy(attempt))
            return true
        } catch  where error.status == 404 && error.errorCode != nil && error.errorCode != "APP_NOT_FOUND" {
            return false
        } catch {
            throw error.cloudFailure
        }
    }

    func owners(
        thingID: String,
        token: String,
        principal: KiiCallError.Principal,
        _ attempt: CloudAttempt
    ) async throws(CloudFailure) -> KiiAPI.Owners {
        let call = KiiHTTPClient.Call(
            method: "GET",
            path: KiiAPI.ownership(configuration.appID, thingID: thingID),
            token: token,
            principal: principal,
            operation: "list the owners of device \(thingID)"
        )
        do throws(KiiCallError) {
            let answer = try await client.perform(call, policy: policy(attempt))
            return try KiiHTTPClient.decode(KiiAPI.Owners.self, answer, call: call, site: configuration.site)
        } catch  where error.status == 404 && error.errorCode == "THING_NOT_FOUND" {
            return KiiAPI.Owners(users: [], groups: [])
        } catch {
            throw error.cloudFailure
        }
    }
}
