import DeviceIdentity
import Foundation
import Hummingbird
import HummingbirdTesting
import Ingest
import Pairing
import Registry
import Testing

@Suite("Ingest API routes against the real server")
struct IngestRouteTests {
    @Test("POST /v1/qr/parse answers what `nbgw qr parse --json` prints")
    func parse() async throws {
        let fixture = try await IngestFixture(devices: 1)
        try await fixture.withServer { client in
            let headers = fixture.headers()
            let nb = try await client.call(
                .post,
                "/v1/qr/parse",
                headers: headers,
                body: jsonBody(["qr": fixture.labels[0]])
            )
            #expect(nb.status == 200)
            #expect(nb.json["kind"] as? String == "nb-bind")
            #expect(nb.json["origin"] as? String == "label")
            #expect(nb.json["label"] as? String == fixture.labels[0])
            #expect((nb.json["actionData"] as? [String: Any])?["id"] as? String == fixture.ids[0])
            let expected = try IngestJSONProbe.encode(
                QRParseReport(
                    NBBindPayload(
                        deviceID: try .init(fixture.ids[0]),
                        origin: .label,
                        labelURL: fixture.labels[0]
                    )
                )
            )
            #expect(nb.body == expected + "\n")

            // A module's IMEI: the registered module it names, or kind imei when no module here has it.
            let body = "35693803000000"
            let imei = body + String(Luhn.checkDigit(for: body))
            let byIMEI = try await client.call(
                .post,
                "/v1/qr/parse",
                headers: headers,
                body: jsonBody(["qr": "IMEI:" + imei])
            )
            #expect(byIMEI.status == 200)
            #expect(byIMEI.json["origin"] as? String == "imei")
            #expect(byIMEI.json["imei"] as? String == imei)
            #expect((byIMEI.json["actionData"] as? [String: Any])?["id"] as? String == fixture.ids[0])
            let elsewhere = try await client.call(
                .post,
                "/v1/qr/parse",
                headers: headers,
                body: jsonBody(["qr": "356938035643809"])
            )
            #expect(elsewhere.status == 200)
            #expect(elsewhere.json["kind"] as? String == "imei")
            #expect(elsewhere.json["actionData"] == nil)

            let matter = try await client.call(
                .post,
                "/v1/qr/parse",
                headers: headers,
                body: jsonBody(["qr": "MT:-24J042C00KA0648G00"])
            )
            #expect(matter.status == 200)
            #expect(matter.json["kind"] as? String == "matter")
            #expect(matter.json["passcode"] as? Int == 20_202_021)

            let unknown = try await client.call(
                .post,
                "/v1/qr/parse",
                headers: headers,
                body: jsonBody(["qr": "hello"])
            )
            #expect(unknown.status == 400)
            #expect(unknown.code == "QR_PROTOCOL_NOT_RECOGNIZED")

            let bad = try await client.call(
                .post,
                "/v1/qr/parse",
                headers: headers,
                body: jsonBody(["qr": "MT:-24J042C00KA0648G0"])
            )
            #expect(bad.status == 400)
            #expect(bad.code == "INVALID_QR")

            let foreign = try await client.call(
                .post,
                "/v1/qr/parse",
                headers: headers,
                body: jsonBody(["qr": "https://nbgw.local/d/ZZZZZZZZZZZZ"])
            )
            #expect(foreign.status == 404)
            #expect(foreign.code == "UNKNOWN_DEVICE")
        }
    }

    @Test("Bind, list with a cursor, device view with the trail, unbind")
    func bindListUnbind() async throws {
        let fixture = try await IngestFixture(devices: 5)
        try await fixture.withServer { client in
            let headers = fixture.headers()
            for (index, label) in fixture.labels.enumerated() {
                let reply = try await client.call(
                    .post,
                    "/v1/bindings",
                    headers: headers,
                    body: jsonBody([
                        "qr": index.isMultiple(of: 2) ? label : IngestFixture.bindJSON(fixture.ids[index]),
                        "account": "alice", "home": "lab",
                    ])
                )
                #expect(reply.status == 201, "\(reply.body)")
                #expect(reply.json["status"] as? String == "bound")
                #expect(reply.json["source"] as? String == "http")
                #expect(reply.json["operator"] as? String == fixture.keyName)
                #expect(reply.json["deviceId"] as? String == fixture.ids[index])
            }
            let again = try await client.call(
                .post,
                "/v1/bindings",
                headers: headers,
                body: jsonBody(["qr": fixture.labels[0], "account": "alice", "home": "lab"])
            )
            #expect(again.status == 200)
            #expect(again.json["status"] as? String == "unchanged")

            // Paging: 2 + 2 + 1, cursor opaque, no cursor on the last page.
            var seen: [String] = []
            var cursor: String?
            var pages = 0
            repeat {
                let uri = "/v1/bindings?account=alice&limit=2" + (cursor.map { "&cursor=\($0)" } ?? "")
                let page = try await client.call(.get, uri, headers: headers)
                #expect(page.status == 200)
                let bindings = page.json["bindings"] as? [[String: Any]] ?? []
                seen += bindings.compactMap { $0["deviceId"] as? String }
                cursor = page.json["nextCursor"] as? String
                pages += 1
            } while cursor != nil && pages < 10
            #expect(seen == fixture.ids.sorted())
            #expect(pages == 3)
            let bobs = try await client.call(.get, "/v1/bindings?account=bob", headers: headers)
            #expect((bobs.json["bindings"] as? [Any])?.isEmpty == true)
            let all = try await client.call(.get, "/v1/bindings", headers: headers)
            #expect((all.json["bindings"] as? [Any])?.count == 5)

            // The device view carries the audit row (operator = key) and the client address.
            let device = try await client.call(.get, "/v1/devices/\(fixture.ids[0])", headers: headers)
            #expect(device.status == 200)
            #expect(device.json["qr"] as? String == fixture.labels[0])
            #expect((device.json["binding"] as? [String: Any])?["account"] as? String == "alice")
            let audit = device.json["audit"] as? [[String: Any]] ?? []
            let bind = try #require(audit.first { $0["event"] as? String == "bind" })
            #expect(bind["operator"] as? String == fixture.keyName)
            #expect(bind["source"] as? String == "http")
            let ingest = device.json["ingest"] as? [[String: Any]] ?? []
            let trail = try #require(ingest.first { $0["event"] as? String == "bind" })
            #expect(trail["apiKey"] as? String == fixture.keyName)
            #expect((trail["clientAddress"] as? String)?.hasPrefix("127.0.0.1:") == true)
            #expect(trail["auditId"] as? Int == bind["id"] as? Int)

            let unbound = try await client.call(.delete, "/v1/bindings/\(fixture.ids[0])", headers: headers)
            #expect(unbound.status == 200)
            #expect(unbound.json["status"] as? String == "unbound")
            #expect(unbound.json["account"] as? String == "alice")
            let twice = try await client.call(.delete, "/v1/bindings/\(fixture.ids[0])", headers: headers)
            #expect(twice.status == 404)
            #expect(twice.code == "NOT_BOUND")
            let unknown = try await client.call(.delete, "/v1/bindings/nbnotregistered0000", headers: headers)
            #expect(unknown.status == 404)
            #expect(unknown.code == "UNKNOWN_DEVICE")
            let malformed = try await client.call(.delete, "/v1/bindings/bad%20id", headers: headers)
            #expect(malformed.status == 400)
            #expect(malformed.code == "INVALID_ARGUMENT")
            let missing = try await client.call(.get, "/v1/devices/nbnotregistered0000", headers: headers)
            #expect(missing.status == 404)
            #expect(missing.code == "UNKNOWN_DEVICE")
        }
        let unbind = try #require(try fixture.registry.audit.entries(deviceID: fixture.ids[0]).last)
        #expect(unbind.event == "unbind")
        #expect(unbind.operator == fixture.keyName)
    }

    @Test("Pairing tokens: create, bind with it, query the result with failures and codes")
    func pairingTokens() async throws {
        let fixture = try await IngestFixture(devices: 3)
        try await fixture.withServer { client in
            let headers = fixture.headers()
            let created = try await client.call(.post, "/v1/homes/lab/pairing-tokens", headers: headers)
            #expect(created.status == 201, "\(created.body)")
            let token = try #require(created.json["token"] as? String)
            #expect(created.json["home"] as? String == "lab")
            #expect(created.json["expiresAt"] is String)
            #expect(
                Set(created.json.keys) == ["token", "home", "expiresAt"],
                "one spelling per field: \(created.body)"
            )
            let withBody = try await client.call(.post, "/v1/homes/lab/pairing-tokens", headers: headers, body: "{}")
            #expect(withBody.status == 201)
            let strict = try await client.call(
                .post,
                "/v1/homes/lab/pairing-tokens",
                headers: headers,
                body: #"{"ttl":5}"#
            )
            #expect(strict.status == 400)
            #expect(strict.code == "INVALID_ARGUMENT")
            let noHome = try await client.call(.post, "/v1/homes/nowhere/pairing-tokens", headers: headers)
            #expect(noHome.status == 404)
            #expect(noHome.code == "UNKNOWN_HOME")

            let pending = try await client.call(.get, "/v1/pairing-tokens/\(token)", headers: headers)
            #expect(pending.status == 200)
            #expect(pending.json["status"] as? String == "pending")

            // A failure with this token (wrong home for it would be TOKEN_INVALID; use bob's bound device).
            let first = try await client.call(
                .post,
                "/v1/bindings",
                headers: headers,
                body: jsonBody(["qr": fixture.labels[1], "account": "bob", "home": "bobs"])
            )
            #expect(first.status == 201)
            let conflict = try await client.call(
                .post,
                "/v1/bindings",
                headers: headers,
                body: jsonBody(["qr": fixture.labels[1], "account": "alice", "home": "lab", "token": token])
            )
            #expect(conflict.status == 409)
            #expect(conflict.code == "DEVICE_ALREADY_BOUND")
            let bound = try await client.call(
                .post,
                "/v1/bindings",
                headers: headers,
                body: jsonBody(["qr": fixture.labels[0], "account": "alice", "home": "lab", "token": token])
            )
            #expect(bound.status == 201)
            let reused = try await client.call(
                .post,
                "/v1/bindings",
                headers: headers,
                body: jsonBody(["qr": fixture.labels[2], "account": "alice", "home": "lab", "token": token])
            )
            #expect(reused.status == 410)
            #expect(reused.code == "TOKEN_EXPIRED")

            let result = try await client.call(.get, "/v1/pairing-tokens/\(token)", headers: headers)
            #expect(result.status == 200)
            #expect(result.json["status"] as? String == "used")
            let devices = result.json["devices"] as? [[String: Any]] ?? []
            #expect(devices.map { $0["deviceId"] as? String } == [fixture.ids[0]])
            let failures = result.json["failures"] as? [[String: Any]] ?? []
            #expect(failures.map { $0["code"] as? String } == ["DEVICE_ALREADY_BOUND", "TOKEN_EXPIRED"])
            #expect(failures.first?["deviceId"] as? String == fixture.ids[1])

            let unknown = try await client.call(.get, "/v1/pairing-tokens/AAAAAAAAAAAAAAAAAAAA", headers: headers)
            #expect(unknown.status == 404)
            #expect(unknown.code == "TOKEN_INVALID")
            let malformed = try await client.call(.get, "/v1/pairing-tokens/short", headers: headers)
            #expect(malformed.status == 400)
        }
    }

    @Test(
        "GET /v1/modems lists the registry's devices with the modem table's state, port and signal (else unknown), paged"
    )
    func modems() async throws {
        let fixture = try await IngestFixture(devices: 3)
        // The daemon has seen the first device on a port and brought it to ready; the others never.
        let devices = try fixture.registry.directory.devices(limit: 3)
        let seen = try #require(devices.first)
        _ = try await fixture.registry.modems.beginProbe(port: "/dev/ttyUSB2")
        _ = try await fixture.registry.modems.recordIdentity(
            port: "/dev/ttyUSB2",
            ModemRecord.Identity(imei: seen.imei, manufacturer: "Quectel", model: "BC66"),
            state: "ready"
        )
        _ = try await fixture.registry.modems.update(
            port: "/dev/ttyUSB2",
            ModemRecord.Change(signal: ModemRecord.Signal(rssiDBm: -71, rsrpDBm: -98), seen: true)
        )
        try await fixture.withServer { client in
            let page = try await client.call(.get, "/v1/modems?limit=2", headers: fixture.headers())
            #expect(page.status == 200)
            #expect(page.json["source"] as? String == "registry")
            let modems = page.json["modems"] as? [[String: Any]] ?? []
            #expect(modems.count == 2)
            #expect(modems.allSatisfy { $0["model"] as? String == "BC66" })
            #expect(
                modems.map { $0["state"] as? String }
                    == modems.map { ($0["imei"] as? String) == seen.imei ? "ready" : "unknown" }
            )
            let live = try #require(modems.first { ($0["imei"] as? String) == seen.imei })
            #expect(live["port"] as? String == "/dev/ttyUSB2")
            #expect(live["signalDbm"] as? Int == -98)
            #expect(live["lastSeen"] is String)
            #expect(modems.filter { ($0["imei"] as? String) != seen.imei }.allSatisfy { $0["port"] == nil })
            let cursor = try #require(page.json["nextCursor"] as? String)
            let rest = try await client.call(.get, "/v1/modems?cursor=\(cursor)", headers: fixture.headers())
            #expect((rest.json["modems"] as? [Any])?.count == 1)
            #expect(rest.json["nextCursor"] == nil)
            let bad = try await client.call(.get, "/v1/modems?cursor=%%%", headers: fixture.headers())
            #expect(bad.status == 400)
            let empty = try await client.call(.get, "/v1/modems?cursor=", headers: fixture.headers())
            #expect(empty.code == "INVALID_ARGUMENT", "an empty cursor is no device id: \(empty.body)")
            let badLimit = try await client.call(.get, "/v1/modems?limit=0", headers: fixture.headers())
            #expect(badLimit.code == "INVALID_ARGUMENT")
            let unknownParam = try await client.call(.get, "/v1/modems?state=up", headers: fixture.headers())
            #expect(unknownParam.code == "INVALID_ARGUMENT")
        }
    }
}

/// The server's JSON encoding, reproduced for comparing bodies byte for byte with the CLI's.
enum IngestJSONProbe {
    static func encode<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
