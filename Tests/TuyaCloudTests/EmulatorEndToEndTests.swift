import Cloud
import CloudEmulatorKit
import DeviceIdentity
import Foundation
import Pairing
import Provisioning
import Registry
import Testing
import TuyaCloud

@Suite("End to end on loopback against the emulator")
struct EmulatorEndToEndTests {
    static func identity(_ imei: String = Modules.imeiA, firmware: String = "1.0") throws -> ModuleIdentity {
        ModuleIdentity(
            imei: try IMEI(imei),
            imsi: try IMSI("460001234567890"),
            iccid: try ICCID("89860012345678901234"),
            manufacturer: "Quectel",
            model: "BC660K-GL",
            firmware: firmware,
            productID: "p-nb-sensor"
        )
    }

    @Test("register → parse → token → bind → pairing result → unbind")
    func fullFlow() async throws {
        try await CloudHarness.with { h async throws in
            // Register: the cloud mints the id; the store keeps it with the cloud's label.
            let registration = try await h.cloud.register(try Self.identity())
            #expect(registration.created)
            #expect(registration.labelPayload.hasPrefix(CloudConfiguration.defaultLabelBase))
            let deviceID = registration.device.deviceID
            #expect(try h.registry.directory.device(imei: Modules.imeiA)?.deviceID == deviceID)
            #expect(h.cloud.bindings.labelPayload(for: registration.device) == registration.labelPayload)

            // Parse: the label resolves through the cloud to the NB bind action.
            let parsed = try await h.cloud.parseQR(registration.labelPayload)
            #expect(parsed.actionName == "device_net_conn_bind_nb")
            #expect(parsed.actionData.id == deviceID)
            let resolved = try await h.cloud.resolve(try QRPayloadParser.parse(registration.labelPayload))
            guard case .nbBind(let nb) = resolved else {
                Issue.record("label did not resolve to an NB bind: \(resolved)")
                return
            }
            #expect(nb.deviceID.rawValue == deviceID && nb.origin == .label)

            // Token, bind, pairing result.
            let token = try await h.cloud.createPairingToken(home: "lab", account: "alice")
            #expect(token.expiresAt.timeIntervalSince(h.wallClock.now()) == 600)
            let bound = try await h.cloud.bindInCloud(
                deviceID: deviceID,
                account: "alice",
                home: "lab",
                token: token.token
            )
            #expect(bound.status == "bound")
            let result = try await h.cloud.pairingResult(token: token.token)
            #expect(result.successDevices.map(\.deviceID) == [deviceID])
            #expect(result.successDevices.first?.productID == "p-nb-sensor")
            #expect(result.errorDevices.isEmpty)
            #expect(try await h.cloud.cloudBindings().map(\.deviceID) == [deviceID])

            // Unbind.
            let unbound = try await h.cloud.unbindInCloud(deviceID: deviceID)
            #expect(unbound.status == "unbound")
            #expect(try await h.cloud.cloudBindings().isEmpty)
            let again = await errorOf { _ = try await h.cloud.unbindInCloud(deviceID: deviceID) }
            #expect(again?.code == .notBound)
        }
    }

    @Test("Registration is idempotent by IMEI and updates changed fields under the same id")
    func registrationIdempotent() async throws {
        try await CloudHarness.with { h async throws in
            let first = try await h.cloud.register(try Self.identity())
            let second = try await h.cloud.register(try Self.identity())
            #expect(!second.created && second.device.deviceID == first.device.deviceID && second.changedFields.isEmpty)
            let updated = try await h.cloud.register(try Self.identity(firmware: "2.0"))
            #expect(updated.device.deviceID == first.device.deviceID)
            #expect(updated.changedFields == ["firmware"])
            #expect(try h.registry.directory.device(imei: Modules.imeiA)?.firmware == "2.0")
            let stats = try h.emulator.stats()
            #expect(stats.effects("register") == 1)
            #expect(stats.effects("register_update") == 1)
            #expect(try h.registry.outbox.counts()[.done] == 3)
        }
    }

    @Test("A module registered locally keeps its device id and label when it moves to the cloud")
    func embeddedIDsAreKept() async throws {
        try await CloudHarness.with { h async throws in
            let local = try #require(
                try h.registry.directory.recordRegistration(
                    try Self.identity(),
                    deviceID: try! DeviceID("nblocal000000000000a"),
                    labelCode: "LOCALCODE123",
                    minted: true
                )
            )
            let registration = try await h.cloud.register(try Self.identity())
            #expect(registration.device.deviceID == local.device.deviceID)
            #expect(registration.labelPayload == CloudConfiguration.defaultLabelBase + "LOCALCODE123")
        }
    }

    @Test("Strong binding: a device bound to one account is refused to another, and the pairing result says so")
    func strongBinding() async throws {
        try await CloudHarness.with { h async throws in
            let deviceID = try await h.cloud.register(try Self.identity()).device.deviceID
            let aliceToken = try await h.cloud.createPairingToken(home: "lab", account: "alice")
            _ = try await h.cloud.bindInCloud(
                deviceID: deviceID,
                account: "alice",
                home: "lab",
                token: aliceToken.token
            )
            let bobToken = try await h.cloud.createPairingToken(home: "attic", account: "bob")
            let refused = await errorOf {
                _ = try await h.cloud.bindInCloud(
                    deviceID: deviceID,
                    account: "bob",
                    home: "attic",
                    token: bobToken.token
                )
            }
            #expect(refused?.code == .deviceAlreadyBound)
            let result = try await h.cloud.pairingResult(token: bobToken.token)
            #expect(result.successDevices.isEmpty)
            #expect(result.errorDevices.map(\.errorCode) == [String(TuyaErrorCode.deviceAlreadyBound)])
            // Binding again where it already is changes nothing.
            let sameAgain = try await h.cloud.createPairingToken(home: "lab", account: "alice")
            let unchanged = try await h.cloud.bindInCloud(
                deviceID: deviceID,
                account: "alice",
                home: "lab",
                token: sameAgain.token
            )
            #expect(unchanged.status == "unchanged")
            // A home belongs to its first account.
            let denied = await errorOf { _ = try await h.cloud.createPairingToken(home: "lab", account: "bob") }
            #expect(denied?.code == .homeAccessDenied)
        }
    }

    @Test("Pairing tokens: single use, 10 minutes, for one home")
    func pairingTokenRules() async throws {
        try await CloudHarness.with { h async throws in
            let first = try await h.cloud.register(try Self.identity()).device.deviceID
            let second = try await h.cloud.register(try Self.identity(Modules.imeiB)).device.deviceID
            let token = try await h.cloud.createPairingToken(home: "lab", account: "alice")
            _ = try await h.cloud.bindInCloud(deviceID: first, account: "alice", home: "lab", token: token.token)
            let reused = await errorOf {
                _ = try await h.cloud.bindInCloud(deviceID: second, account: "alice", home: "lab", token: token.token)
            }
            #expect(reused?.code == .tokenExpired)

            let stale = try await h.cloud.createPairingToken(home: "lab", account: "alice")
            h.wallClock.advance(by: 601)
            let expired = await errorOf {
                _ = try await h.cloud.bindInCloud(deviceID: second, account: "alice", home: "lab", token: stale.token)
            }
            #expect(expired?.code == .tokenExpired)

            let otherHome = try await h.cloud.createPairingToken(home: "attic", account: "alice")
            let wrongHome = await errorOf {
                _ = try await h.cloud.bindInCloud(
                    deviceID: second,
                    account: "alice",
                    home: "lab",
                    token: otherHome.token
                )
            }
            #expect(wrongHome?.code == .tokenInvalid)
            let unknown = await errorOf { _ = try await h.cloud.pairingResult(token: "AAAAAAAAAAAAAAAAAAAA") }
            #expect(unknown?.code == .tokenInvalid)
        }
    }

    @Test("QR payloads the cloud did not issue are not recognised; unknown label codes are unknown devices")
    func qrParsing() async throws {
        try await CloudHarness.with { h async throws in
            let foreign = await errorOf { _ = try await h.cloud.parseQR("https://smartapp.tuya.com/s/p?p=x&uuid=y") }
            #expect(foreign?.code == .qrProtocolNotRecognized)
            let unknown = await errorOf {
                _ = try await h.cloud.parseQR(CloudConfiguration.defaultLabelBase + "ZZZZZZZZZZZZ")
            }
            #expect(unknown?.code == .unknownDevice)
        }
    }

    @Test("A wrong secret is a signature error (1004), reported at once with what to fix")
    func wrongSecret() async throws {
        try await CloudHarness.with { h async throws in
            let impostor = try h.makeCloud(
                credentials: try CloudCredentials(
                    clientID: CloudHarness.credentials.clientID,
                    secret: "not-the-right-secret"
                )
            )
            let error = await errorOf { _ = try await impostor.parseQR("x") }
            await impostor.shutdown()
            #expect(error?.code == .invalidArgument)
            #expect(error?.message.contains("signature") == true)
            #expect(error?.message.contains("NBGW_CLOUD_SECRET") == true)
            #expect(try h.emulator.stats().requests == 1)
            #expect(h.sleeps.sleeps.isEmpty)
        }
    }

    @Test("Tokens: one grant serves many calls, a refresh replaces it before expiry, the old pair dies")
    func tokenLifecycle() async throws {
        try await CloudHarness.with { h async throws in
            _ = try await h.cloud.register(try Self.identity())
            _ = try await h.cloud.cloudModules()
            _ = try await h.cloud.cloudBindings()
            #expect(try h.emulator.stats().effects("token_grant") == 1)
            h.wallClock.advance(by: 7200 - 30)
            _ = try await h.cloud.cloudModules()
            var stats = try h.emulator.stats()
            #expect(stats.effects("token_refresh") == 1)
            #expect(stats.effects("token_grant") == 1)
            // A second client, with no token yet, gets its own grant; the refreshed pair keeps working.
            let other = try h.makeCloud()
            _ = try await other.cloudModules()
            await other.shutdown()
            _ = try await h.cloud.cloudModules()
            stats = try h.emulator.stats()
            #expect(stats.effects("token_grant") == 2)
            #expect(stats.effects("token_refresh") == 1)
        }
    }

    @Test("Local bind and unbind reach the cloud through the outbox at once when it is up")
    func localBindSyncs() async throws {
        try await CloudHarness.with { h async throws in
            try h.seedAccounts()
            let deviceID = try await h.cloud.register(try Self.identity()).device.deviceID
            let bound = try await h.cloud.bind(
                BindCommand(deviceID: try DeviceID(deviceID), account: "alice", home: "lab", source: .cli)
            )
            #expect(bound.outcome.status == .bound)
            #expect(bound.sync.state == .synced)
            #expect(try await h.cloud.cloudBindings().map { "\($0.uid)/\($0.assetID)" } == ["alice/lab"])
            #expect(try await CloudSyncChecker.check(registry: h.registry, cloud: h.cloud.http).isConsistent)

            let again = try await h.cloud.bind(
                BindCommand(deviceID: try DeviceID(deviceID), account: "alice", home: "lab", source: .cli)
            )
            #expect(again.outcome.status == .unchanged && again.sync.state == .notNeeded)

            let unbound = try await h.cloud.unbind(deviceID: deviceID, source: .cli)
            #expect(unbound.sync.state == .synced)
            #expect(try await h.cloud.cloudBindings().isEmpty)
            #expect(try h.registry.bindings.find(deviceID: deviceID) == nil)
            #expect(try await CloudSyncChecker.check(registry: h.registry, cloud: h.cloud.http).isConsistent)
        }
    }

    @Test("The admin endpoint is signed and changes the fault plan at run time")
    func adminEndpoint() async throws {
        try await CloudHarness.with { h async throws in
            let transport = AsyncHTTPClientTransport(connectTimeout: .seconds(2))
            func send(_ method: String, _ path: String, _ body: String, signer: TuyaSigner) async throws -> String {
                let bytes = Array(body.utf8)
                let headers = signer.headers(
                    method: method,
                    url: path,
                    body: bytes,
                    accessToken: nil,
                    t: Int64(h.wallClock.now().timeIntervalSince1970 * 1000),
                    nonce: TuyaSigner.makeNonce()
                )
                let response = try await transport.send(
                    CloudHTTPRequest(
                        method: method,
                        url: h.emulator.baseURL + path,
                        headers: headers.map { CloudHTTPRequest.Header(name: $0.name, value: $0.value) },
                        body: bytes
                    ),
                    timeout: .seconds(5)
                )
                return String(decoding: response.body, as: UTF8.self)
            }
            let answer = try await send(
                "PUT",
                "/admin/faults",
                #"{"server_errors":2}"#,
                signer: CloudHarness.credentials.signer
            )
            #expect(answer.contains("\"server_errors\":2"))
            #expect(h.emulator.faults.current.serverErrors == 2)
            let forged = try await send(
                "PUT",
                "/admin/faults",
                #"{"server_errors":9}"#,
                signer: TuyaSigner(clientID: CloudHarness.credentials.clientID, secret: "forged-secret-value")
            )
            #expect(forged.contains("\"code\":1004"))
            #expect(h.emulator.faults.current.serverErrors == 2)
            let stats = try await send("GET", "/admin/stats", "", signer: CloudHarness.credentials.signer)
            #expect(stats.contains("\"requests\""))
            await transport.shutdown()
        }
    }
}
