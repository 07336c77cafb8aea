import Foundation
import TuyaCloud

/// The strictly decoded body of a batch (``CloudServerHandler/batch(_:_:principal:now:)``).
struct CloudServerBatchBody: CloudServerBody, Sendable {
    static let fields: Set<String> = ["requests"]
    var requests: [CloudAPI.BatchCall]
}

extension CloudServerHandler {
    /// The calls a batch may carry: the state-changing ones a gateway's outbox sends.
    static func batchable(method: String, path: String) -> Bool {
        switch (method, path) {
        case ("POST", CloudAPI.modulesPath), ("POST", CloudAPI.pairingTokenPath), ("POST", CloudAPI.bindPath):
            return true
        case ("DELETE", _):
            let prefix = CloudAPI.bindingsPath + "/"
            return path.hasPrefix(prefix) && !path.dropFirst(prefix.count).contains("/")
        default:
            return false
        }
    }

    /// `POST /v1.0/nbgw/batch`: each call runs through the route it names, in its own transaction
    /// under its own idempotency key, exactly as if it had been sent alone (a call sent alone
    /// before and again in a batch, or the other way round, replays its first answer). One answer
    /// per call, in the calls' order; a call that is not batchable or malformed is refused alone.
    ///
    /// The calls of one batch may run at the same time (``batchConcurrency``), as the same calls
    /// sent on parallel connections would: every rule is a constraint, so they cannot break one,
    /// but a client must not put calls that depend on each other (a token and the bind that uses
    /// it) in one batch. A gateway's outbox sends one row per device at a time and its tokens
    /// before its binds.
    func batch(
        _ request: CloudServerRequest,
        _ outcome: Outcome,
        principal: CloudPrincipal,
        now: Int64
    ) async -> Outcome {
        var outcome = outcome
        let body: CloudServerBatchBody
        switch CloudServerJSON.decode(CloudServerBatchBody.self, from: request.body) {
        case .failure(let failure):
            outcome.failure = failure
            return outcome
        case .success(let value):
            body = value
        }
        if let problem = Self.itemProblem(request.body) {
            outcome.failure = .invalid(problem)
            return outcome
        }
        guard (1...CloudAPI.batchLimit).contains(body.requests.count) else {
            outcome.failure = .invalid("requests must hold 1 to \(CloudAPI.batchLimit) calls")
            return outcome
        }
        // The batch's own shape is refused as a whole, as any malformed body is; a well-formed
        // call that fails (a path that cannot be batched, a conflict) fails alone below.
        for (index, call) in body.requests.enumerated() {
            guard call.method == "POST" || call.method == "DELETE" else {
                outcome.failure = .invalid("requests[\(index)].method must be POST or DELETE")
                return outcome
            }
            if let key = call.idempotencyKey, !Self.isIdempotencyKey(key) {
                outcome.failure = .invalid("requests[\(index)].idempotency_key must be 16 to 64 of [A-Za-z0-9._-]")
                return outcome
            }
        }
        // Up to `batchConcurrency` calls at once, answers kept in the calls' order.
        let calls = body.requests
        var answers = [String](repeating: "", count: calls.count)
        await withTaskGroup(of: (Int, Outcome).self) { group in
            var next = 0
            func start() {
                let index = next
                next += 1
                group.addTask { (index, await self.batchCall(calls[index], index: index, principal: principal, now: now)) }
            }
            while next < min(Self.batchConcurrency, calls.count) { start() }
            for await (index, answer) in group {
                answers[index] = Self.batchAnswer(answer)
                if answer.changesState { outcome.changesState = true }
                if next < calls.count { start() }
            }
        }
        outcome.result = "{\"results\":[" + answers.joined(separator: ",") + "]}"
        return outcome
    }

    /// Calls of one batch in flight at once. Why 8: each call is a short transaction whose time
    /// is mostly the commit's fsync; eight at once let PostgreSQL commit them together (group
    /// commit) without taking more than half of a node's default 16 pooled connections
    /// (tools/bench-drain.sh measures it against one call at a time).
    static let batchConcurrency = 8

    /// One call of a batch through the route it names, as if sent alone.
    func batchCall(_ call: CloudAPI.BatchCall, index: Int, principal: CloudPrincipal, now: Int64) async -> Outcome {
        let method = call.method.uppercased()
        var answer = Outcome(route: "\(method) \(call.path)")
        guard Self.batchable(method: method, path: call.path) else {
            answer.failure = .invalid(
                "requests[\(index)]: \(method) \(call.path) cannot be batched; a batch carries registrations, "
                    + "pairing tokens, binds and unbinds"
            )
            return answer
        }
        var headers: [String: String] = [:]
        if let key = call.idempotencyKey {
            // The key is in the batch's body, which the batch's signature covers: signed.
            headers[CloudAPI.idempotencyHeader.lowercased()] = key
            headers["signature-headers"] = CloudAPI.idempotencyHeader
        }
        let single = CloudServerRequest(
            method: method,
            path: call.path,
            rawQuery: nil,
            headers: headers,
            body: Array((call.body ?? "").utf8)
        )
        return await dispatch(single, principal: principal, outcome: answer, now: now)
    }

    static func isIdempotencyKey(_ key: String) -> Bool {
        (16...64).contains(key.utf8.count)
            && key.utf8.allSatisfy {
                CloudServerRules.isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
                    || $0 == UInt8(ascii: ".")
            }
    }

    /// The fields a batch's call may have.
    static let callFields: Set<String> = ["method", "path", "idempotency_key", "body"]

    /// A call with a field it does not take or a `null` (strict, as every body of the API), or nil.
    static func itemProblem(_ bytes: [UInt8]) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            let calls = object["requests"] as? [Any]
        else { return nil }
        for (index, call) in calls.enumerated() {
            guard let fields = call as? [String: Any] else { return "requests[\(index)] must be an object" }
            if let unknown = fields.keys.filter({ !callFields.contains($0) }).sorted().first {
                return "requests[\(index)]: unknown field \(unknown.debugDescription); a call takes "
                    + callFields.sorted().joined(separator: ", ")
            }
            if let null = fields.filter({ $0.value is NSNull }).keys.sorted().first {
                return "requests[\(index)]: field \(null) is null; leave it out instead"
            }
        }
        return nil
    }

    /// One call's envelope without `t`.
    static func batchAnswer(_ outcome: Outcome) -> String {
        if let result = outcome.result {
            return "{\"result\":\(result),\"success\":true}"
        }
        let failure = outcome.failure ?? CloudServerFailure(TuyaErrorCode.systemError, "system error")
        let message = (try? CloudJSON.string(failure.msg)) ?? "\"\""
        return "{\"code\":\(failure.code),\"msg\":\(message),\"success\":false}"
    }
}
