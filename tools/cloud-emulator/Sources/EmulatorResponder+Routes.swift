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
            let refresh = EmulatorRequest.segment(path.dropFirst(CloudAPI.tokenPath.count + 1))
            return run(outcome) { db in
                try EmulatorStore.refreshToken(db, refreshToken: refresh, now: now, lifetime: lifetime)
            }
        case ("POST", CloudAPI.modulesPath):
            let labelBase = configuration.labelBase
            return mutating(request, outcome, now: now, body: CloudAPI.RegisterRequest.self) { db, body, key in
                try EmulatorStore.register(db, body, labelBase: labelBase, key: key, now: now)
            }
        case ("GET", CloudAPI.modulesPath):
            let paging: (after: String, limit: Int)
            switch EmulatorResponder.paging(request) {
            case .failure(let failure): return failed(outcome, failure)
            case .success(let value): paging = value
            }
            return run(outcome) { db in
                .success(try EmulatorStore.modules(db, after: paging.after, limit: paging.limit))
            }
        case ("POST", CloudAPI.qrParsePath):
            let body: CloudAPI.QRParseRequest
            switch EmulatorJSON.decode(CloudAPI.QRParseRequest.self, from: request.body) {
            case .failure(let failure): return failed(outcome, failure)
            case .success(let value): body = value
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
            let token = EmulatorRequest.segment(path.dropFirst(CloudAPI.pairingResultPath("").count))
            return run(outcome) { db in try EmulatorStore.pairingResult(db, token: token) }
        case ("GET", CloudAPI.bindingsPath):
            let paging: (after: String, limit: Int)
            switch EmulatorResponder.paging(request) {
            case .failure(let failure): return failed(outcome, failure)
            case .success(let value): paging = value
            }
            return run(outcome) { db in
                .success(try EmulatorStore.bindings(db, after: paging.after, limit: paging.limit))
            }
        case ("DELETE", _) where path.hasPrefix(CloudAPI.bindingsPath + "/"):
            let deviceID = EmulatorRequest.segment(path.dropFirst(CloudAPI.bindingsPath.count + 1))
            guard EmulatorStore.isDeviceID(deviceID) else {
                return failed(outcome, .invalid("device_id must be 1 to 64 of A-Z a-z 0-9 _ . -"))
            }
            return mutating(request, outcome, now: now, body: EmptyResult.self) { db, _, key in
                try EmulatorStore.unbind(db, deviceID: deviceID, key: key, now: now)
            }
        default:
            // The route table answered 404/405 before dispatch; a route it serves that is missing
            // here is a bug of the emulator's.
            return failed(
                outcome,
                EmulatorFailure(TuyaErrorCode.systemError, "system error: no handler for \(request.method) \(path)")
            )
        }
    }

    /// `page_size` (an integer from 1 to 100, 20 when absent) and `last_row_key` (any text: the
    /// list goes on after it).
    static func paging(_ request: EmulatorRequest) -> Result<(after: String, limit: Int), EmulatorFailure> {
        var limit = 20
        if let text = request.queryValue("page_size") {
            guard let value = Int(text), (1...100).contains(value) else {
                return .failure(.invalid("page_size must be an integer from 1 to 100"))
            }
            limit = value
        }
        return .success((request.queryValue("last_row_key") ?? "", limit))
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
    private func mutating<Body: EmulatorBody, Result: Encodable>(
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
        } else {
            switch EmulatorJSON.decode(Body.self, from: request.body) {
            case .failure(let failure): return failed(outcome, failure)
            case .success(let body): decoded = body
            }
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
