import Foundation
import TuyaCloud

/// A transport that answers from a script, records every request, and serves token calls by
/// itself (a fresh pair per grant or refresh) unless the script says otherwise.
final class ScriptedTransport: CloudHTTPTransport, @unchecked Sendable {
    enum Step {
        case respond(Int, [String: String], String)
        case fail(CloudTransportError)
    }

    private let lock = NSLock()
    private var script: [Step]
    private var tokenScript: [Step]
    private(set) var requests: [CloudHTTPRequest] = []
    private var issued = 0

    init(_ script: [Step] = [], tokenScript: [Step] = []) {
        self.script = script
        self.tokenScript = tokenScript
    }

    static func success(_ resultJSON: String) -> Step {
        .respond(200, [:], "{\"success\":true,\"result\":\(resultJSON),\"t\":1}")
    }

    static func failure(code: Int, msg: String = "scripted") -> Step {
        .respond(200, [:], "{\"success\":false,\"code\":\(code),\"msg\":\"\(msg)\",\"t\":1}")
    }

    var businessRequests: [CloudHTTPRequest] {
        lock.withLock { requests.filter { !$0.url.contains("/v1.0/token") } }
    }

    var tokenRequests: [CloudHTTPRequest] {
        lock.withLock { requests.filter { $0.url.contains("/v1.0/token") } }
    }

    func send(_ request: CloudHTTPRequest, timeout: Duration) async throws -> CloudHTTPResponse {
        let step: Step = lock.withLock {
            requests.append(request)
            if request.url.contains("/v1.0/token") {
                if !tokenScript.isEmpty { return tokenScript.removeFirst() }
                issued += 1
                let access = String(format: "%032d", issued)
                let refresh = String(format: "r%031d", issued)
                return ScriptedTransport.success(
                    "{\"access_token\":\"\(access)\",\"expire_time\":7200,"
                        + "\"refresh_token\":\"\(refresh)\",\"uid\":\"u\"}"
                )
            }
            guard !script.isEmpty else { return ScriptedTransport.failure(code: 9999, msg: "script exhausted") }
            return script.removeFirst()
        }
        switch step {
        case .respond(let status, let headers, let body):
            return CloudHTTPResponse(status: status, headers: headers, body: Array(body.utf8))
        case .fail(let error):
            throw error
        }
    }

    func shutdown() async {}
}
