import Cloud
import NBGWCore
import Pairing

extension HTTPCloud {
    /// Sends a drain's changes through the cloud's batch endpoint (`POST /v1.0/nbgw/batch`): the
    /// unbinds in one round, the binds' pairing tokens in one, then the binds in one (up to
    /// ``CloudAPI/batchLimit`` calls each), every call with the key ``send(_:attempt:)`` would give
    /// it, so a row sent once in a batch and again alone (or the other way round) gets its first
    /// answer. A bind whose token was refused as expired goes on alone (new token generations); a
    /// cloud without the endpoint (404, code 1108) gets single calls from then on.
    ///
    /// Why: an offline gateway's backlog costs one signed round trip per call, two per bind; in a
    /// batch a hundred rows cost three (tools/bench-drain.sh measures the difference).
    public func send(batch items: [CloudBatchItem]) async -> [Result<String, CloudFailure>] {
        guard items.count > 1, batchOffered else { return await sendOneByOne(items) }
        var results = [Result<String, CloudFailure>?](repeating: nil, count: items.count)
        var binds: [Int] = []
        var unbinds: [Int] = []
        for (index, item) in items.enumerated() {
            switch item.change.action {
            case .bind where item.change.account != nil && item.change.home != nil: binds.append(index)
            case .bind: results[index] = .failure(Self.missingOwner(item.change))
            case .unbind: unbinds.append(index)
            }
        }
        let policy = policy(items[0].attempt)

        // Unbinds: one call each, as `send` makes it.
        for chunk in Self.chunks(unbinds) {
            var calls: [(index: Int, call: CloudAPI.BatchCall)] = []
            for index in chunk {
                let change = items[index].change
                do throws(TuyaCloudError) {
                    let segment = try HTTPCloud.pathSegment(change.deviceID, what: "device id")
                    let call = CloudAPI.BatchCall(
                        method: "DELETE",
                        path: CloudAPI.bindingPath(segment),
                        idempotencyKey: items[index].attempt.idempotencyKey,
                        body: nil
                    )
                    calls.append((index, call))
                } catch {
                    results[index] = .failure(error.cloudFailure)
                }
            }
            let answers: [CloudAPI.BatchAnswer<CloudAPI.UnbindResult>]
            switch await batchCall(calls.map(\.call), as: CloudAPI.UnbindResult.self, policy: policy) {
            case .notOffered: return await sendOneByOne(items)
            case .failed(let failure):
                for (index, _) in calls { results[index] = .failure(failure) }
                continue
            case .answered(let value): answers = value
            }
            for ((index, _), answer) in zip(calls, answers) {
                let deviceID = items[index].change.deviceID
                if answer.success, let result = answer.result {
                    results[index] = .success(answerJSON(["deviceId": result.deviceID, "status": result.status]))
                } else if answer.code == TuyaErrorCode.deviceNotBound || answer.code == TuyaErrorCode.deviceNotExist {
                    results[index] = .success(answerJSON(["deviceId": deviceID, "status": "not-bound"]))
                } else {
                    results[index] = .failure(refusal(answer, operation: "unbind device \(deviceID)"))
                }
            }
        }

        // Binds: the first generation's pairing tokens, then the binds with them.
        var alone: [Int] = []
        for chunk in Self.chunks(binds) {
            var tokenCalls: [(index: Int, call: CloudAPI.BatchCall)] = []
            for index in chunk {
                let change = items[index].change
                // Why `try?`: two strings always encode; the guard keeps a row from vanishing anyway.
                guard
                    let body = try? CloudJSON.string(
                        CloudAPI.PairingTokenRequest(assetID: change.home!, uid: change.account!)
                    )
                else {
                    results[index] = .failure(Self.missingOwner(change))
                    continue
                }
                tokenCalls.append(
                    (
                        index,
                        CloudAPI.BatchCall(
                            method: "POST",
                            path: CloudAPI.pairingTokenPath,
                            idempotencyKey: "\(items[index].attempt.idempotencyKey).t1",
                            body: body
                        )
                    )
                )
            }
            let tokens: [CloudAPI.BatchAnswer<CloudAPI.PairingTokenResult>]
            switch await batchCall(tokenCalls.map(\.call), as: CloudAPI.PairingTokenResult.self, policy: policy) {
            case .notOffered: return await sendOneByOne(items)
            case .failed(let failure):
                for (index, _) in tokenCalls { results[index] = .failure(failure) }
                continue
            case .answered(let value): tokens = value
            }
            var bindCalls: [(index: Int, call: CloudAPI.BatchCall)] = []
            for ((index, _), answer) in zip(tokenCalls, tokens) {
                let change = items[index].change
                guard answer.success, let token = answer.result?.token else {
                    results[index] = .failure(
                        refusal(answer, operation: "create a pairing token for home \(change.home!.escapedForDisplay())")
                    )
                    continue
                }
                let body = try? CloudJSON.string(
                    CloudAPI.BindRequest(deviceID: change.deviceID, assetID: change.home!, uid: change.account!, token: token)
                )
                bindCalls.append(
                    (
                        index,
                        CloudAPI.BatchCall(
                            method: "POST",
                            path: CloudAPI.bindPath,
                            idempotencyKey: "\(items[index].attempt.idempotencyKey).b1",
                            body: body
                        )
                    )
                )
            }
            guard !bindCalls.isEmpty else { continue }
            let bound: [CloudAPI.BatchAnswer<CloudAPI.BindResult>]
            switch await batchCall(bindCalls.map(\.call), as: CloudAPI.BindResult.self, policy: policy) {
            case .notOffered: return await sendOneByOne(items)
            case .failed(let failure):
                for (index, _) in bindCalls { results[index] = .failure(failure) }
                continue
            case .answered(let value): bound = value
            }
            for ((index, _), answer) in zip(bindCalls, bound) {
                let change = items[index].change
                if answer.success, let result = answer.result {
                    results[index] = .success(answerJSON(["deviceId": result.deviceID, "status": result.status]))
                } else if answer.code == TuyaErrorCode.pairingTokenExpired
                    || answer.code == TuyaErrorCode.pairingTokenInvalid
                {
                    // The token ran out between the two rounds: the next generations, alone.
                    alone.append(index)
                } else {
                    results[index] = .failure(
                        refusal(
                            answer,
                            operation: "bind device \(change.deviceID.escapedForDisplay()) to home "
                                + "\(change.home!.escapedForDisplay())"
                        )
                    )
                }
            }
        }
        for index in alone {
            do throws(CloudFailure) {
                results[index] = .success(try await send(items[index].change, attempt: items[index].attempt))
            } catch {
                results[index] = .failure(error)
            }
        }
        return results.map { $0 ?? .failure(CloudFailure(.unavailable, NBGWError(.internalError, "not sent"))) }
    }

    /// How one batch request ended.
    enum BatchOutcome<Result: Codable & Sendable & Equatable> {
        case answered([CloudAPI.BatchAnswer<Result>])
        /// The whole request failed (unreachable, refused as a whole): every call of it failed so.
        case failed(CloudFailure)
        /// The cloud has no batch endpoint.
        case notOffered
    }

    func batchCall<Result: Codable & Sendable & Equatable>(
        _ calls: [CloudAPI.BatchCall],
        as _: Result.Type,
        policy: RetryPolicy
    ) async -> BatchOutcome<Result> {
        guard !calls.isEmpty else { return .answered([]) }
        do throws(TuyaCloudError) {
            let answer: CloudAPI.BatchResult<Result> = try await client.perform(
                try call(
                    "POST",
                    CloudAPI.batchPath,
                    body: CloudAPI.BatchRequest(requests: calls),
                    operation: "send \(calls.count) outbox calls in one batch"
                ),
                policy: policy
            )
            guard answer.results.count == calls.count else {
                return .failed(
                    CloudFailure(
                        .unavailable,
                        NBGWError(
                            .internalError,
                            "the cloud answered a batch of \(calls.count) calls with \(answer.results.count) results; "
                                + "sent again later"
                        )
                    )
                )
            }
            return .answered(answer.results)
        } catch {
            if error.code == TuyaErrorCode.uriPathInvalid {
                batchState.withLock { $0 = false }
                logger.notice("the cloud has no batch endpoint; outbox rows go one call each")
                return .notOffered
            }
            return .failed(error.cloudFailure)
        }
    }

    /// A whole batch while the cloud offers the endpoint.
    public var preferredBatchSize: Int { batchOffered ? CloudAPI.batchLimit : 1 }

    /// Whether to try the batch endpoint (until the cloud answers it with 404).
    var batchOffered: Bool { batchState.withLock { $0 } }

    /// A call's refusal inside a batch, as the same refusal of the call alone would read.
    func refusal<Result>(_ answer: CloudAPI.BatchAnswer<Result>, operation: String) -> CloudFailure {
        TuyaCloudError(
            .api(code: answer.code ?? TuyaErrorCode.systemError, message: answer.msg ?? ""),
            operation: operation,
            endpoint: "POST \(configuration.baseURL)\(CloudAPI.batchPath)"
        ).cloudFailure
    }

    func answerJSON(_ object: [String: String]) -> String {
        // Why `try!`: a dictionary of strings always encodes.
        try! CloudJSON.string(object)
    }

    static func missingOwner(_ change: CloudBindingChange) -> CloudFailure {
        CloudFailure(.refused, NBGWError(.internalError, "a cloud bind needs an account and a home (\(change))"))
    }

    static func chunks(_ indices: [Int]) -> [[Int]] {
        stride(from: 0, to: indices.count, by: CloudAPI.batchLimit).map {
            Array(indices[$0..<min($0 + CloudAPI.batchLimit, indices.count)])
        }
    }
}
