import CloudEmulatorKit
import Foundation
import Testing
import TuyaCloud

/// The emulator's HTTP contract as docs/cloud-api.yaml states it, over real HTTP with hand-signed
/// requests: statuses that follow the outcome when asked for (`Prefer: http-status`), Tuya's 200
/// envelopes otherwise, 404/405 with `Allow`, strict bodies and queries, replays refused with or
/// without a nonce, snake_case everywhere. (tools/api-contract.sh checks the same document with
/// schemathesis; these are the cases it cannot reach, or that must hold whatever it generates.)
@Suite("The cloud emulator answers exactly as docs/cloud-api.yaml says")
struct EmulatorContractTests {
    struct Answer {
        var status: Int
        var headers: [String: String]
        var json: [String: Any]
    }

    /// Sends one request signed with the harness's credentials; `token` makes it a business call.
    static func send(
        _ h: CloudHarness,
        _ method: String,
        _ url: String,
        body: String = "",
        token: String? = nil,
        nonce: String? = TuyaSigner.makeNonce(),
        t: Int64? = nil,
        preferStatuses: Bool = true
    ) async throws -> Answer {
        let transport = AsyncHTTPClientTransport(connectTimeout: .seconds(2))
        defer { Task { await transport.shutdown() } }
        let bytes = Array(body.utf8)
        var headers = CloudHarness.credentials.signer.headers(
            method: method,
            url: url,
            body: bytes,
            accessToken: token,
            t: t ?? Int64(h.wallClock.now().timeIntervalSince1970 * 1000),
            nonce: nonce ?? ""
        )
        if nonce == nil { headers.removeAll { $0.name == "nonce" } }
        if preferStatuses { headers.append((name: "Prefer", value: "http-status")) }
        let response = try await transport.send(
            CloudHTTPRequest(
                method: method,
                url: h.emulator.baseURL + url,
                headers: headers.map { CloudHTTPRequest.Header(name: $0.name, value: $0.value) },
                body: bytes
            ),
            timeout: .seconds(5)
        )
        let json = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
        return Answer(status: response.status, headers: response.headers, json: json)
    }

    static func accessToken(_ h: CloudHarness) async throws -> String {
        let answer = try await send(h, "GET", "/v1.0/token?grant_type=1")
        return try #require((answer.json["result"] as? [String: Any])?["access_token"] as? String)
    }

    @Test("Asked for statuses, a refusal carries the HTTP status of its code, and the envelope still says the code")
    func statusesFollowTheOutcome() async throws {
        try await CloudHarness.with { h async throws in
            let token = try await Self.accessToken(h)
            let grant = try await Self.send(h, "GET", "/v1.0/token?grant_type=2")
            #expect(grant.status == 400 && grant.json["code"] as? Int == 1003)
            let unknown = try await Self.send(
                h,
                "POST",
                "/v1.0/iot-03/qrcode/parse",
                body: #"{"code":"https://elsewhere.example/d/X1"}"#,
                token: token
            )
            #expect(unknown.status == 404 && unknown.json["code"] as? Int == 3001)
            #expect(unknown.json["success"] as? Bool == false)
            let forged = try await Self.send(h, "GET", "/v1.0/iot-03/nb-modules", token: "0123456789abcdef")
            #expect(forged.status == 401 && forged.json["code"] as? Int == 1011)
        }
    }

    @Test("An unknown path is 404; a served path with another method is 405 with Allow (RFC 9110)")
    func routing() async throws {
        try await CloudHarness.with { h async throws in
            let token = try await Self.accessToken(h)
            let missing = try await Self.send(h, "GET", "/v1.0/iot-03/nothing", token: token)
            #expect(missing.status == 404 && missing.json["code"] as? Int == 1108)
            #expect(missing.headers["allow"] == nil)
            let method = try await Self.send(h, "PUT", "/v1.0/iot-03/nb-modules", body: "{}", token: token)
            #expect(method.status == 405 && method.json["code"] as? Int == 1108)
            #expect(method.headers["allow"] == "POST, GET")
            let admin = try await Self.send(h, "DELETE", "/admin/faults")
            #expect(admin.status == 405 && admin.headers["allow"] == "GET, PUT")
        }
    }

    @Test("Bodies and queries are strict: unknown fields, null, wrong types and a page_size out of range are 400")
    func strictRequests() async throws {
        try await CloudHarness.with { h async throws in
            let token = try await Self.accessToken(h)
            let cases = [
                #"{"imei":"356938035643809","color":"red"}"#, #"{"imei":"356938035643809","model":null}"#,
                #"{"imei":356938035643809}"#, #"["356938035643809"]"#, #"{"imei":" 356938035643809"}"#,
                #"{"imei":"356938035643808"}"#,
            ]
            for body in cases {
                let answer = try await Self.send(h, "POST", "/v1.0/iot-03/nb-modules", body: body, token: token)
                #expect(answer.status == 400 && answer.json["code"] as? Int == 1109, "\(body): \(answer.json)")
            }
            let registered = try await Self.send(
                h,
                "POST",
                "/v1.0/iot-03/nb-modules",
                body: #"{"imei":"356938035643809"}"#,
                token: token
            )
            #expect(registered.status == 200, "\(registered.json)")
            for query in ["page_size=0", "page_size=101", "page_size=ten"] {
                let page = try await Self.send(h, "GET", "/v1.0/iot-03/nb-modules?\(query)", token: token)
                #expect(page.status == 400 && page.json["code"] as? Int == 1109, "\(query)")
            }
            let faults = try await Self.send(h, "PUT", "/admin/faults", body: #"{"server_errors":-1}"#)
            #expect(faults.status == 400 && faults.json["code"] as? Int == 1109)
            #expect(h.emulator.faults.current.serverErrors == 0)
        }
    }

    @Test("Without a nonce, as Tuya's SDKs send it, a signed request is served once; the same request again is a replay (1004)")
    func nonceOptionalReplayRefused() async throws {
        try await CloudHarness.with { h async throws in
            let t = Int64(h.wallClock.now().timeIntervalSince1970 * 1000)
            let first = try await Self.send(h, "GET", "/v1.0/token?grant_type=1", nonce: nil, t: t)
            #expect(first.status == 200 && first.json["success"] as? Bool == true, "\(first.json)")
            let replay = try await Self.send(h, "GET", "/v1.0/token?grant_type=1", nonce: nil, t: t)
            #expect(replay.status == 401 && replay.json["code"] as? Int == 1004, "\(replay.json)")
            // A nonce, when sent, still may not repeat, even under another time.
            let nonce = TuyaSigner.makeNonce()
            let once = try await Self.send(h, "GET", "/v1.0/token?grant_type=1", nonce: nonce, t: t + 1)
            #expect(once.status == 200, "\(once.json)")
            let again = try await Self.send(h, "GET", "/v1.0/token?grant_type=1", nonce: nonce, t: t + 2)
            #expect(again.status == 401 && again.json["code"] as? Int == 1004, "\(again.json)")
            // The emulator's own admin calls keep the nonce required.
            let admin = try await Self.send(h, "GET", "/admin/stats", nonce: nil)
            #expect(admin.status == 401)
        }
    }

    @Test("By default a refusal is HTTP 200 with its envelope, as Tuya's gateways answer; Prefer: http-status gives its status")
    func envelopeStatusesByDefault() async throws {
        try await CloudHarness.with { h async throws in
            let token = try await Self.accessToken(h)
            let tuyaStyle = try await Self.send(
                h, "POST", "/v1.0/iot-03/qrcode/parse", body: #"{"code":"https://elsewhere.example/d/X1"}"#, token: token,
                preferStatuses: false
            )
            #expect(tuyaStyle.status == 200 && tuyaStyle.json["code"] as? Int == 3001, "\(tuyaStyle.json)")
            #expect(tuyaStyle.headers["preference-applied"] == nil)
            let grant = try await Self.send(h, "GET", "/v1.0/token?grant_type=2", preferStatuses: false)
            #expect(grant.status == 200 && grant.json["success"] as? Bool == false && grant.json["code"] as? Int == 1003)
            let preferred = try await Self.send(
                h, "POST", "/v1.0/iot-03/qrcode/parse", body: #"{"code":"https://elsewhere.example/d/X1"}"#, token: token
            )
            #expect(preferred.status == 404 && preferred.json["code"] as? Int == 3001, "\(preferred.json)")
            #expect(preferred.headers["preference-applied"] == "http-status")
        }
    }

    @Test("The QR parse result is snake_case like every key of the profile")
    func snakeCaseParseResult() async throws {
        try await CloudHarness.with { h async throws in
            let token = try await Self.accessToken(h)
            let registered = try await Self.send(
                h,
                "POST",
                "/v1.0/iot-03/nb-modules",
                body: #"{"imei":"356938035643809"}"#,
                token: token
            )
            let label = try #require((registered.json["result"] as? [String: Any])?["qrcode"] as? String)
            let parsed = try await Self.send(
                h,
                "POST",
                "/v1.0/iot-03/qrcode/parse",
                body: #"{"code":"\#(label)"}"#,
                token: token
            )
            let result = try #require(parsed.json["result"] as? [String: Any])
            #expect(Set(result.keys) == ["action_name", "action_data"])
        }
    }
}
