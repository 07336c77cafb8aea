import Foundation
import GRDB
import TuyaCloud

extension EmulatorResponder {
    /// The route template of a request, for logs (tokens in paths never reach the log).
    static func route(_ request: EmulatorRequest) -> String {
        let path = request.path
        let template: String
        if path.hasPrefix(CloudAPI.tokenPath + "/") {
            template = CloudAPI.refreshTokenPath("{refresh_token}")
        } else if path.hasPrefix(CloudAPI.pairingResultPath("")) {
            template = CloudAPI.pairingResultPath("{token}")
        } else if path.hasPrefix(CloudAPI.bindingsPath + "/") {
            template = CloudAPI.bindingPath("{device_id}")
        } else {
            template = path
        }
        return "\(request.method) \(template)"
    }

    func dispatch(_ request: EmulatorRequest, outcome: Outcome, now: Int64) -> Outcome {
        var outcome = outcome
        let path = request.path
        let lifetime = configuration.tokenLifetime
        switch (request.method, path) {
        case ("GET", CloudAPI.tokenPath):
            guard request.queryValue("grant_type") == "1" else {
                return failed(outcome, EmulatorFailure(TuyaErrorCode.grantTypeInvalid, "grant type invalid"))
            }
            let uid = "emulator-" + configuration.credentials.clientID
            return run(outcome) { db in
                .success(try EmulatorStore.grantToken(db, uid: uid, now: now, lifetime: lifetime))
            }
        case ("GET", _) where path.hasPrefix(CloudAPI.tokenPath + "/"):
            let refresh = String(path.dropFirst(CloudAPI.tokenPath.count + 1))
            return run(outcome) { db in
                try EmulatorStore.refreshToken(db, refreshToken: refresh, now: now, lifetime: lifetime)
            }
        case ("POST", CloudAPI.modulesPath):
            let labelBase = configuration.labelBase
            return mutating(request, outcome, now: now, body: CloudAPI.RegisterRequest.self) { db, body, key in
                try EmulatorStore.register(db, body, labelBase: labelBase, key: key, now: now)
            }
        case ("GET", CloudAPI.modulesPath):
            let (after, limit) = paging(request)
            return run(outcome) { db in .success(try EmulatorStore.modules(db, after: after, limit: limit)) }
        case ("POST", CloudAPI.qrParsePath):
            guard let body = try? JSONDecoder().decode(CloudAPI.QRParseRequest.self, from: Data(request.body)) else {
                return failed(outcome, .invalid("body must be {\"code\": string}"))
            }
            let labelBase = configuration.labelBase
            return run(outcome) { db in try EmulatorStore.parseQR(db, code: body.code, labelBase: labelBase) }
        case ("POST", CloudAPI.pairingTokenPath):
            let (pairingLifetime, region) = (configuration.pairingTokenLifetime, configuration.region)
            return mutating(request, outcome, now: now, body: CloudAPI.PairingTokenRequest.self) { db, body, key in
                try EmulatorStore.createPairingToken(
                    db,
                    body,
                    lifetime: pairingLifetime,
                    region: region,
                    key: key,
                    now: now
                )
            }
        case ("POST", CloudAPI.bindPath):
            return mutating(request, outcome, now: now, body: CloudAPI.BindRequest.self) { db, body, key in
                try EmulatorStore.bind(db, body, key: key, now: now)
            }
        case ("GET", _) where path.hasPrefix(CloudAPI.pairingResultPath("")):
            let token = String(path.dropFirst(CloudAPI.pairingResultPath("").count))
            return run(outcome) { db in try EmulatorStore.pairingResult(db, token: token) }
        case ("GET", CloudAPI.bindingsPath):
            let (after, limit) = paging(request)
            return run(outcome) { db in .success(try EmulatorStore.bindings(db, after: after, limit: limit)) }
        case ("DELETE", _) where path.hasPrefix(CloudAPI.bindingsPath + "/"):
            let deviceID = String(path.dropFirst(CloudAPI.bindingsPath.count + 1))
            return mutating(request, outcome, now: now, body: EmptyResult.self) { db, _, key in
                try EmulatorStore.unbind(db, deviceID: deviceID, key: key, now: now)
            }
        default:
            outcome.status = 200
            return failed(
                outcome,
                EmulatorFailure(TuyaErrorCode.uriPathInvalid, "uri path invalid: \(request.method) \(path)")
            )
        }
    }

    private func paging(_ request: EmulatorRequest) -> (after: String, limit: Int) {
        let limit = min(max(Int(request.queryValue("page_size") ?? "") ?? 20, 1), 100)
        return (request.queryValue("last_row_key") ?? "", limit)
    }

    private func failed(_ outcome: Outcome, _ failure: EmulatorFailure) -> Outcome {
        var outcome = outcome
        outcome.failure = failure
        return outcome
    }

    /// Runs a read or token call in one transaction.
    private func run<Result: Encodable>(
        _ outcome: Outcome,
        _ body: (Database) throws -> Swift.Result<Result, EmulatorFailure>
    ) -> Outcome {
        var outcome = outcome
        do {
            switch try store.write(body) {
            case .success(let value): outcome.result = try CloudJSON.string(value)
            case .failure(let failure): outcome.failure = failure
            }
        } catch {
            outcome.failure = EmulatorFailure(TuyaErrorCode.systemError, "system error: \(error)")
        }
        return outcome
    }

    /// Runs a state-changing call in one transaction, behind its idempotency key: a repeated key
    /// with the same request replays the first success; with another request it is refused (1113).
    private func mutating<Body: Decodable, Result: Encodable>(
        _ request: EmulatorRequest,
        _ outcome: Outcome,
        now: Int64,
        body type: Body.Type,
        _ handler: (Database, Body, String?) throws -> Swift.Result<Result, EmulatorFailure>
    ) -> Outcome {
        var outcome = outcome
        outcome.changesState = true
        let key: String?
        switch idempotencyKey(request) {
        case .failure(let failure): return failed(outcome, failure)
        case .success(let value): key = value
        }
        outcome.key = key
        let decoded: Body
        if type == EmptyResult.self, let empty = EmptyResult() as? Body {
            decoded = empty
        } else if let body = try? JSONDecoder().decode(Body.self, from: Data(request.body)) {
            decoded = body
        } else {
            return failed(outcome, .invalid("the body is not the JSON this call takes (docs/cloud-api.yaml)"))
        }
        let client = configuration.credentials.clientID
        let hash = TuyaSigner.contentSHA256(Array("\(request.method) \(request.path)\n".utf8) + request.body)
        do {
            let answer: (String?, EmulatorFailure?, Bool) = try store.write { db in
                if let key {
                    switch try EmulatorStore.replay(db, client: client, key: key, requestHash: hash) {
                    case .result(let stored): return (stored, nil, true)
                    case .conflict:
                        return (
                            nil,
                            EmulatorFailure(
                                TuyaErrorCode.repeatedOperation,
                                "repeated operation: idempotency key reused for a different request"
                            ), false
                        )
                    case .none: break
                    }
                }
                switch try handler(db, decoded, key) {
                case .failure(let failure):
                    return (nil, failure, false)
                case .success(let value):
                    let json = try CloudJSON.string(value)
                    if let key {
                        try EmulatorStore.remember(
                            db,
                            client: client,
                            key: key,
                            requestHash: hash,
                            response: json,
                            now: now
                        )
                    }
                    return (json, nil, false)
                }
            }
            outcome.result = answer.0
            outcome.failure = answer.1
            outcome.replayed = answer.2
            if answer.2 { outcome.changesState = false }
        } catch {
            outcome.failure = EmulatorFailure(TuyaErrorCode.systemError, "system error: \(error)")
        }
        return outcome
    }
}
