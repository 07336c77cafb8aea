import Foundation
import Pairing
import TuyaCloud

extension CloudServerHandler {
    /// The route template of a request, for logs and metrics (tokens in paths never reach them).
    public static func route(_ request: CloudServerRequest) -> String {
        "\(request.method) \(CloudServerRoutes.template(of: request.path) ?? request.path)"
    }

    func dispatch(
        _ request: CloudServerRequest,
        principal: CloudPrincipal,
        outcome: Outcome,
        now: Int64
    ) async -> Outcome {
        let path = request.path
        let lifetime = settings.tokenLifetime
        switch (request.method, path) {
        case ("GET", CloudAPI.tokenPath):
            guard request.queryValue("grant_type") == "1" else {
                return failed(outcome, CloudServerFailure(TuyaErrorCode.grantTypeInvalid, "grant type invalid"))
            }
            return await run(outcome) {
                .success(try await store.grantToken(principal, now: now, lifetime: lifetime))
            }
        case ("GET", _) where path.hasPrefix(CloudAPI.tokenPath + "/"):
            let refresh = CloudServerRequest.segment(path.dropFirst(CloudAPI.tokenPath.count + 1))
            return await run(outcome) {
                try await store.refreshToken(principal, refreshToken: refresh, now: now, lifetime: lifetime)
            }
        case ("POST", CloudAPI.modulesPath):
            return await mutating(request, outcome, principal: principal, now: now) {
                (body: CloudAPI.RegisterRequest) in
                CloudServerRules.problem(in: body).map { .failure($0) } ?? .success(.register(body))
            }
        case ("GET", CloudAPI.modulesPath):
            let paging: (after: String, limit: Int)
            switch CloudServerHandler.paging(request) {
            case .failure(let failure): return failed(outcome, failure)
            case .success(let value): paging = value
            }
            return await run(outcome) {
                .success(try await store.modules(principal, after: paging.after, limit: paging.limit))
            }
        case ("POST", CloudAPI.qrParsePath):
            let body: CloudAPI.QRParseRequest
            switch CloudServerJSON.decode(CloudAPI.QRParseRequest.self, from: request.body) {
            case .failure(let failure): return failed(outcome, failure)
            case .success(let value): body = value
            }
            let labelCode: String
            switch CloudServerRules.labelCode(inScanned: body.code, labelBase: settings.labelBase) {
            case .failure(let failure): return failed(outcome, failure)
            case .success(let value): labelCode = value
            }
            return await run(outcome) { () async throws -> Result<CloudAPI.QRParseResult, CloudServerFailure> in
                guard let module = try await store.module(principal, labelCode: labelCode) else {
                    return .failure(
                        CloudServerFailure(TuyaErrorCode.deviceNotExist, "device not exist: unknown label code")
                    )
                }
                return .success(
                    CloudAPI.QRParseResult(
                        actionName: BindingRules.nbBindActionName,
                        actionData: CloudAPI.QRParseResult.ActionData(
                            id: module.deviceID,
                            imei: module.imei,
                            productID: module.productID
                        )
                    )
                )
            }
        case ("POST", CloudAPI.pairingTokenPath):
            return await mutating(request, outcome, principal: principal, now: now) {
                (body: CloudAPI.PairingTokenRequest) in
                CloudServerRules.problem(in: body).map { .failure($0) } ?? .success(.pairingToken(body))
            }
        case ("POST", CloudAPI.bindPath):
            return await mutating(request, outcome, principal: principal, now: now) { (body: CloudAPI.BindRequest) in
                .success(.bind(body))
            }
        case ("GET", _) where path.hasPrefix(CloudAPI.pairingResultPath("")):
            let token = CloudServerRequest.segment(path.dropFirst(CloudAPI.pairingResultPath("").count))
            return await run(outcome) { try await store.pairingResult(principal, token: token) }
        case ("GET", CloudAPI.bindingsPath):
            let paging: (after: String, limit: Int)
            switch CloudServerHandler.paging(request) {
            case .failure(let failure): return failed(outcome, failure)
            case .success(let value): paging = value
            }
            return await run(outcome) {
                .success(try await store.bindings(principal, after: paging.after, limit: paging.limit))
            }
        case ("DELETE", _) where path.hasPrefix(CloudAPI.bindingsPath + "/"):
            let deviceID = CloudServerRequest.segment(path.dropFirst(CloudAPI.bindingsPath.count + 1))
            guard CloudServerRules.isDeviceID(deviceID) else {
                return failed(outcome, .invalid("device_id must be 1 to 64 of A-Z a-z 0-9 _ . -"))
            }
            return await mutating(request, outcome, principal: principal, now: now) { (_: EmptyResult) in
                .success(.unbind(deviceID: deviceID))
            }
        case ("GET", CloudAPI.eventsPath):
            return await events(request, outcome, principal: principal)
        case ("POST", CloudAPI.batchPath):
            return await batch(request, outcome, principal: principal, now: now)
        case (_, _) where path.hasPrefix(CloudAPI.devicesPath) || path.hasPrefix(CloudAPI.homesPrefix):
            return await devices(request, outcome, principal: principal, now: now)
        default:
            // The route table answered 404/405 before dispatch; a route it serves that is missing
            // here is a bug of the handler's.
            return failed(
                outcome,
                CloudServerFailure(TuyaErrorCode.systemError, "system error: no handler for \(request.method) \(path)")
            )
        }
    }

    /// `page_size` (an integer from 1 to 100, 20 when absent) and `last_row_key` (any text: the
    /// list goes on after it).
    public static func paging(_ request: CloudServerRequest) -> Result<(after: String, limit: Int), CloudServerFailure> {
        var limit = 20
        if let text = request.queryValue("page_size") {
            guard let value = Int(text), (1...100).contains(value) else {
                return .failure(.invalid("page_size must be an integer from 1 to 100"))
            }
            limit = value
        }
        return .success((request.queryValue("last_row_key") ?? "", limit))
    }

    func failed(_ outcome: Outcome, _ failure: CloudServerFailure) -> Outcome {
        var outcome = outcome
        outcome.failure = failure
        return outcome
    }

    /// Runs a read or token call.
    func run<Result: Encodable>(
        _ outcome: Outcome,
        _ body: () async throws -> Swift.Result<Result, CloudServerFailure>
    ) async -> Outcome {
        var outcome = outcome
        do {
            switch try await body() {
            case .success(let value): outcome.result = try CloudJSON.string(value)
            case .failure(let failure): outcome.failure = failure
            }
        } catch {
            outcome.failure = .storeFailed(error)
        }
        return outcome
    }

    /// Decodes and checks a state-changing call's body, then has the store apply it behind its
    /// idempotency key: a repeated key with the same request replays the first success; with
    /// another request it is refused (1113).
    func mutating<Body: CloudServerBody>(
        _ request: CloudServerRequest,
        _ outcome: Outcome,
        principal: CloudPrincipal,
        now: Int64,
        _ mutation: (Body) -> Swift.Result<CloudMutation, CloudServerFailure>
    ) async -> Outcome {
        var outcome = outcome
        outcome.changesState = true
        let key: String?
        switch idempotencyKey(request) {
        case .failure(let failure): return failed(outcome, failure)
        case .success(let value): key = value
        }
        outcome.key = key
        let decoded: Body
        if Body.self == EmptyResult.self, let empty = EmptyResult() as? Body {
            decoded = empty
        } else {
            switch CloudServerJSON.decode(Body.self, from: request.body) {
            case .failure(let failure): return failed(outcome, failure)
            case .success(let body): decoded = body
            }
        }
        let change: CloudMutation
        switch mutation(decoded) {
        case .failure(let failure): return failed(outcome, failure)
        case .success(let value): change = value
        }
        let idempotency = key.map { key in
            CloudIdempotency(key: key, requestHash: CloudServerHandler.requestHash(request))
        }
        do {
            switch try await store.mutate(change, by: principal, idempotency: idempotency, settings: settings, now: now)
            {
            case .failure(let failure):
                outcome.failure = failure
            case .success(.applied(let json)):
                outcome.result = json
            case .success(.replayed(let json)):
                outcome.result = json
                outcome.replayed = true
                outcome.changesState = false
            }
        } catch {
            outcome.failure = .storeFailed(error)
        }
        return outcome
    }

    /// What an idempotency key is bound to: method, path and the exact body.
    public static func requestHash(_ request: CloudServerRequest) -> String {
        TuyaSigner.contentSHA256(Array("\(request.method) \(request.path)\n".utf8) + request.body)
    }
}
