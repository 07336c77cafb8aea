import CloudServer
import Foundation
import Hummingbird
import TuyaCloud

extension EmulatorResponder {
    /// `GET /admin/faults`, `PUT /admin/faults`, `GET /admin/stats`: signed like a token call
    /// (client id, `t`, nonce, no access token) with the emulator's credentials, checked against
    /// the real clock (a skewed-clock fault must not lock the operator out), never faulted.
    func admin(_ request: CloudServerRequest) -> Response {
        let now = configuration.wallClock.millis
        var outcome = Outcome(route: "\(request.method) \(request.path)")
        switch authenticateAdmin(request, now: now) {
        case .failure(let failure):
            outcome.failure = failure
            return CloudServerHandler.response(outcome, t: now)
        case .success:
            break
        }
        if let failure = CloudServerHandler.routeFailure(request, outcome: &outcome, routes: EmulatorResponder.adminRoutes) {
            outcome.failure = failure
            return CloudServerHandler.response(outcome, t: now)
        }
        do {
            switch (request.method, request.path) {
            case ("GET", "/admin/faults"):
                outcome.result = try CloudJSON.string(faults.current)
            case ("PUT", "/admin/faults"):
                let plan: EmulatorFaults
                switch CloudServerJSON.decode(EmulatorFaults.self, from: request.body) {
                case .failure(let failure):
                    outcome.failure = failure
                    return CloudServerHandler.response(outcome, t: now)
                case .success(let value): plan = value
                }
                if let problem = plan.problem {
                    outcome.failure = .invalid(problem)
                    return CloudServerHandler.response(outcome, t: now)
                }
                if plan.expireAllTokens {
                    try store.expireAllTokens()
                }
                faults.set(plan)
                logger.notice(
                    "fault plan changed",
                    metadata: ["faults": "\(String(decoding: request.body, as: UTF8.self))"]
                )
                outcome.result = try CloudJSON.string(faults.current)
            case ("GET", "/admin/stats"):
                outcome.result = try CloudJSON.string(try store.stats(faultsFired: faults.firedCounts))
            default:
                outcome.failure = CloudServerFailure(TuyaErrorCode.uriPathInvalid, "uri path invalid")
            }
        } catch {
            outcome.failure = .invalid("\(error)")
        }
        return CloudServerHandler.response(outcome, t: now)
    }

    private func authenticateAdmin(_ request: CloudServerRequest, now: Int64) -> Result<Void, CloudServerFailure> {
        guard request.header("access_token") == nil else {
            return .failure(.invalid("admin calls are signed like token calls, without access_token"))
        }
        // Signed exactly like a token call: client_id + t + nonce + stringToSign.
        switch authenticateTokenStyle(request, now: now) {
        case .failure(let failure): return .failure(failure)
        case .success: return .success(())
        }
    }

    private func authenticateTokenStyle(_ request: CloudServerRequest, now: Int64) -> Result<Void, CloudServerFailure> {
        guard request.header("client_id") == configuration.credentials.clientID,
            let t = request.header("t"), let millis = Int64(t),
            abs(millis - now) <= configuration.allowedClockSkew.cloudMillis,
            let sign = request.header("sign"), let nonce = request.header("nonce"), !nonce.isEmpty
        else {
            return .failure(CloudServerFailure(TuyaErrorCode.signInvalid, "sign invalid: admin request"))
        }
        let stringToSign = TuyaSigner.stringToSign(
            method: request.method,
            body: request.body,
            signedHeaders: [],
            url: TuyaSigner.canonicalURL(path: request.path, query: request.query)
        )
        let valid = configuration.credentials.signer.isValid(
            sign: sign,
            accessToken: nil,
            t: t,
            nonce: nonce,
            stringToSign: stringToSign
        )
        guard valid, adminReplays.insert("nonce " + nonce, now: now) else {
            return .failure(CloudServerFailure(TuyaErrorCode.signInvalid, "sign invalid"))
        }
        return .success(())
    }

    /// The emulator's own routes: its fault plan and counters.
    static let adminRoutes: [(method: String, path: String)] = [
        ("GET", "/admin/faults"),
        ("PUT", "/admin/faults"),
        ("GET", "/admin/stats"),
    ]
}

extension EmulatorFaults: CloudServerBody {
    public static var fields: Set<String> { Set(CodingKeys.allCases.map(\.rawValue)) }
}
