import Cloud
import Foundation
import Logging
import NBGWCore

/// Sends one logical cloud call: signs it (``TuyaSigner``), attaches the access token, retries
/// under the ``RetryPolicy`` with sleeps on the injected clock, re-authenticates once on
/// 1010/1011, and decodes the ``TuyaEnvelope``. Secrets never reach the log: paths are logged in
/// their redacted form and headers are not logged at all.
final class TuyaOpenAPIClient: Sendable {
    struct Call: Sendable {
        var method: String
        var path: String
        var query: [(name: String, value: String)] = []
        var body: [UInt8] = []
        /// Sent as a signed `Idempotency-Key` header on state-changing calls.
        var idempotencyKey: String?
        /// For messages: `register IMEI 490154203237518`.
        var operation: String
        /// `path` with secrets (refresh or pairing tokens) replaced, for logs and messages.
        var logPath: String
        /// Business calls carry an access token; token calls do not.
        var authenticated = true
    }

    let configuration: CloudConfiguration
    let signer: TuyaSigner
    let transport: any CloudHTTPTransport
    let tokens = TuyaTokenManager()
    let clock: any Clock<Duration>
    let wallClock: any WallClock
    let jitter: @Sendable () -> Double
    let logger: Logger

    init(
        configuration: CloudConfiguration,
        transport: any CloudHTTPTransport,
        clock: any Clock<Duration>,
        wallClock: any WallClock,
        jitter: @escaping @Sendable () -> Double,
        logger: Logger
    ) {
        self.configuration = configuration
        self.signer = configuration.credentials.signer
        self.transport = transport
        self.clock = clock
        self.wallClock = wallClock
        self.jitter = jitter
        self.logger = logger
    }

    // MARK: Calls

    /// Performs `call` and returns its decoded `result`.
    ///
    /// - Parameter policy: overrides the configured policy (an interactive command's quick first try).
    func perform<Result: Decodable & Sendable>(
        _ call: Call,
        as _: Result.Type = Result.self,
        policy: RetryPolicy? = nil
    ) async throws(TuyaCloudError) -> Result {
        let policy = policy ?? configuration.retryPolicy
        let endpoint = "\(call.method) \(configuration.baseURL)\(call.logPath)"
        var attempt = 0
        var reauthenticated = false
        while true {
            attempt += 1
            var token: TuyaTokenManager.Token?
            if call.authenticated {
                do throws(TuyaCloudError) {
                    token = try await accessToken()
                } catch {
                    // The token call already retried; its failure is this call's failure (a cancelled
                    // caller's, a cancellation: the shared fetch may fail on for the others).
                    throw TuyaCloudError(
                        Task.isCancelled ? .cancelled : error.kind,
                        operation: call.operation,
                        endpoint: error.endpoint,
                        attempts: error.attempts
                    )
                }
            }
            do throws(TuyaCloudError.Kind) {
                return try await attemptOnce(call, accessToken: token?.accessToken, attempt: attempt)
            } catch .api(let code, let message)
                where RetryPolicy.reauthenticationCodes.contains(code) && call.authenticated && !reauthenticated
            {
                // Why not counted as an attempt: the request never reached the business logic; a
                // token that expired or was revoked cloud-side is replaced once, then resent.
                logger.info(
                    "cloud access token rejected; authenticating again",
                    metadata: ["code": "\(code)", "msg": "\(message.escapedSnippet)", "operation": "\(call.operation)"]
                )
                if let token { await tokens.invalidate(token.accessToken) }
                reauthenticated = true
                attempt -= 1
            } catch {
                // Why first: a cancelled request often surfaces as a transport error (a closed
                // channel); for the caller it is a cancellation, whatever the transport said, so the
                // outbox makes the row due again at once instead of backing off.
                if Task.isCancelled {
                    throw TuyaCloudError(.cancelled, operation: call.operation, endpoint: endpoint, attempts: attempt)
                }
                guard policy.isRetryable(error), attempt < policy.maxAttempts else {
                    throw TuyaCloudError(error, operation: call.operation, endpoint: endpoint, attempts: attempt)
                }
                var retryAfter: Duration?
                if case .httpStatus(_, let after) = error { retryAfter = after }
                let delay = policy.delay(afterAttempt: attempt, jitter: jitter(), retryAfter: retryAfter)
                logger.warning(
                    "cloud call failed; retrying",
                    metadata: [
                        "operation": "\(call.operation)", "endpoint": "\(endpoint)", "attempt": "\(attempt)",
                        "error":
                            "\(TuyaCloudError(error, operation: call.operation, endpoint: endpoint).kindDescription)",
                        "delay_ms": "\(delay.wholeMilliseconds)",
                    ]
                )
                do {
                    try await clock.sleep(for: delay)
                } catch {
                    throw TuyaCloudError(.cancelled, operation: call.operation, endpoint: endpoint, attempts: attempt)
                }
            }
        }
    }

    /// One signed exchange; failures are classified but not retried here.
    private func attemptOnce<Result: Decodable & Sendable>(
        _ call: Call,
        accessToken: String?,
        attempt: Int
    ) async throws(TuyaCloudError.Kind) -> Result {
        let url = TuyaSigner.canonicalURL(path: call.path, query: call.query)
        var extra: [(name: String, value: String)] = []
        if let key = call.idempotencyKey {
            extra.append((CloudAPI.idempotencyHeader, key))
        }
        let headers = signer.headers(
            method: call.method,
            url: url,
            body: call.body,
            accessToken: accessToken,
            t: wallClock.milliseconds,
            nonce: TuyaSigner.makeNonce(),
            extraSignedHeaders: extra
        )
        let request = CloudHTTPRequest(
            method: call.method,
            url: configuration.baseURL + url,
            headers: headers.map { CloudHTTPRequest.Header(name: $0.name, value: $0.value) },
            body: call.body
        )
        let started = ContinuousClock.now
        let response: CloudHTTPResponse
        do {
            response = try await transport.send(request, timeout: configuration.requestTimeout)
        } catch let error as CloudTransportError {
            switch error.reason {
            case .timedOut: throw .timedOut(error.detail)
            case .connection: throw .transport(error.detail)
            case .unusable: throw .configuration("the HTTP client cannot send to \(configuration.baseURL): \(error)")
            }
        } catch {
            if error is CancellationError || Task.isCancelled { throw .cancelled }
            throw .transport(String(describing: error))
        }
        let envelope = try? TuyaEnvelope<Result>.decode(response.body)
        logger.debug(
            "cloud call",
            metadata: [
                "operation": "\(call.operation)", "method": "\(call.method)", "path": "\(call.logPath)",
                "status": "\(response.status)", "code": "\(envelope?.code.map(String.init) ?? "-")",
                "attempt": "\(attempt)", "ms": "\((ContinuousClock.now - started).wholeMilliseconds)",
            ]
        )
        if response.status == 429 || (500...599).contains(response.status) {
            throw .httpStatus(response.status, retryAfter: Self.retryAfter(response.headers["retry-after"]))
        }
        guard let envelope else {
            if (200...299).contains(response.status) {
                throw .malformedResponse("HTTP \(response.status) body is not a JSON envelope {success, result, t}")
            }
            throw .httpStatus(response.status, retryAfter: nil)
        }
        guard envelope.success else {
            throw .api(code: envelope.code ?? -1, message: envelope.msg ?? "")
        }
        if let result = envelope.result {
            return result
        }
        if let empty = EmptyResult() as? Result {
            return empty
        }
        throw .malformedResponse("success without a result")
    }

    /// `Retry-After` in seconds (the HTTP-date form is not used by OpenAPI gateways).
    static func retryAfter(_ value: String?) -> Duration? {
        guard let value, let seconds = Int(value.trimmingCharacters(in: .whitespaces)), seconds >= 0 else {
            return nil
        }
        return .seconds(seconds)
    }

    // MARK: Tokens

    /// A valid access token: the cached one, a refreshed one, or a new grant.
    func accessToken() async throws(TuyaCloudError) -> TuyaTokenManager.Token {
        let now = wallClock.now()
        return try await tokens.token(now: now, margin: configuration.tokenRefreshMargin) {
            [self] (fetch) async throws(TuyaCloudError) -> TuyaTokenManager.Token in
            try await self.fetchToken(fetch)
        }
    }

    private func fetchToken(_ fetch: TuyaTokenManager.Fetch) async throws(TuyaCloudError) -> TuyaTokenManager.Token {
        let call: Call
        switch fetch {
        case .grant:
            call = Call(
                method: "GET",
                path: CloudAPI.tokenPath,
                query: [("grant_type", "1")],
                operation: "get an access token",
                logPath: CloudAPI.tokenPath + "?grant_type=1",
                authenticated: false
            )
        case .refresh(let refreshToken):
            call = Call(
                method: "GET",
                path: CloudAPI.refreshTokenPath(refreshToken),
                operation: "refresh the access token",
                logPath: CloudAPI.refreshTokenPath("<refresh_token>"),
                authenticated: false
            )
        }
        let requested = wallClock.now()
        let result: CloudAPI.TokenResult = try await perform(call)
        guard !result.accessToken.isEmpty, !result.refreshToken.isEmpty, result.expireTime > 0 else {
            throw TuyaCloudError(
                .malformedResponse("token result without access_token, refresh_token or expire_time"),
                operation: call.operation,
                endpoint: "\(call.method) \(configuration.baseURL)\(call.logPath)"
            )
        }
        logger.debug(
            "cloud access token obtained",
            metadata: ["how": "\(fetch == .grant ? "grant" : "refresh")", "expire_time": "\(result.expireTime)"]
        )
        // Why from the request time: the lifetime counts from when the cloud issued it, which is
        // no earlier than when we asked.
        return TuyaTokenManager.Token(
            accessToken: result.accessToken,
            refreshToken: result.refreshToken,
            expiresAt: requested.addingTimeInterval(TimeInterval(result.expireTime)),
            uid: result.uid
        )
    }
}

extension WallClock {
    /// Milliseconds since the Unix epoch: the `t` header.
    var milliseconds: Int64 { Int64((now().timeIntervalSince1970 * 1000).rounded()) }
}
