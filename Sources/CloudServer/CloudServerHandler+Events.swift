import TuyaCloud

extension CloudServerHandler {
    /// The longest `wait` of an event long poll. Why 25 s: under the idle timeouts of common load
    /// balancers (haproxy's `timeout server` in docs/fleet.md is 60 s, AWS ALB's default 60 s).
    public static let maximumEventWait = 25
    /// How often a waiting poll looks again. Why 250 ms: one indexed query per waiting consumer,
    /// four times a second, is nothing to PostgreSQL, and an event reaches a waiting consumer in
    /// at most a quarter second, far under what an operator notices.
    static let eventPollInterval: Duration = .milliseconds(250)

    /// `GET /v1.0/nbgw/events?after=CURSOR&limit=N&wait=S`: `limit` 1 to 500 (100 when absent),
    /// `wait` 0 to ``maximumEventWait`` seconds (0 when absent). With nothing after the cursor it
    /// waits up to `wait` seconds (at most ``CloudServerSettings/eventWaitLimit``) for an event,
    /// unless this node already holds ``CloudServerSettings/maximumEventWaiters`` waiting polls
    /// (then it answers at once). A long poll may always answer early with no event.
    func events(_ request: CloudServerRequest, _ outcome: Outcome, principal: CloudPrincipal) async -> Outcome {
        var outcome = outcome
        var limit = 100
        if let text = request.queryValue("limit") {
            guard let value = Int(text), (1...500).contains(value) else {
                outcome.failure = .invalid("limit must be an integer from 1 to 500")
                return outcome
            }
            limit = value
        }
        var wait = 0
        if let text = request.queryValue("wait") {
            guard let value = Int(text), (0...Self.maximumEventWait).contains(value) else {
                outcome.failure = .invalid("wait must be a whole number of seconds from 0 to \(Self.maximumEventWait)")
                return outcome
            }
            wait = value
        }
        // An empty `after` is not "from the start" (leave it out for that): the store refuses it.
        let cursor = request.queryValue("after")
        let deadline = ContinuousClock.now.advanced(by: .seconds(min(wait, settings.eventWaitLimit)))
        var waiting = false
        defer { if waiting { eventWaiters.leave() } }
        while true {
            let page: Result<CloudAPI.EventPage, CloudServerFailure>
            do {
                guard let answer = try await store.events(principal, after: cursor, limit: limit) else {
                    outcome.failure = CloudServerFailure(
                        TuyaErrorCode.uriPathInvalid,
                        "uri path invalid: this cloud keeps no event stream (nbgw-cloud does)"
                    )
                    return outcome
                }
                page = answer
            } catch {
                outcome.failure = .storeFailed(error)
                return outcome
            }
            switch page {
            case .failure(let failure):
                outcome.failure = failure
                return outcome
            case .success(let events):
                if !events.events.isEmpty || ContinuousClock.now >= deadline || Task.isCancelled {
                    return answered(outcome, events)
                }
                if !waiting {
                    guard eventWaiters.enter(limit: settings.maximumEventWaiters) else {
                        return answered(outcome, events)
                    }
                    waiting = true
                }
                try? await Task.sleep(for: Self.eventPollInterval)
            }
        }
    }

    private func answered(_ outcome: Outcome, _ page: CloudAPI.EventPage) -> Outcome {
        var outcome = outcome
        do {
            outcome.result = try CloudJSON.string(page)
        } catch {
            outcome.failure = .storeFailed(error)
        }
        return outcome
    }
}
