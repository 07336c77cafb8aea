import AsyncHTTPClient
import Cloud
import Foundation
import Logging

/// Sends one logical Kii call: the bearer token, the app headers and the media type, retries
/// under a ``Cloud/RetryPolicy`` with sleeps on the injected clock (`Retry-After` honoured), and
/// classifies the answer. Tokens travel in headers only; headers are never logged.
///
/// Why its own client instead of TuyaCloud's transport: an adapter is one module that knows no
/// other adapter (docs/architecture.md); what the two share is AsyncHTTPClient itself.
final class KiiHTTPClient: Sendable {
    struct Call: Sendable {
        var method: String
        var path: String
        var token: String
        var principal: KiiCallError.Principal
        var contentType: String?
        var body: [UInt8] = []
        /// For messages: `onboard IMEI 490154203237518`.
        var operation: String
    }

    struct Answer: Sendable {
        var status: Int
        var body: [UInt8]
    }

    let configuration: KiiConfiguration
    let client: HTTPClient
    let clock: any Clock<Duration>
    let jitter: @Sendable () -> Double
    let logger: Logger

    init(
        configuration: KiiConfiguration,
        clock: any Clock<Duration>,
        jitter: @escaping @Sendable () -> Double,
        logger: Logger
    ) {
        self.configuration = configuration
        // No redirects (a redirect would carry the bearer token to another URL), no decompression.
        self.client = HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup,
            configuration: HTTPClient.Configuration(
                redirectConfiguration: .disallow,
                timeout: .init(connect: .milliseconds(configuration.connectTimeout.wholeMilliseconds)),
                decompression: .disabled
            )
        )
        self.clock = clock
        self.jitter = jitter
        self.logger = logger
    }

    func shutdown() async {
        try? await client.shutdown()
    }

    /// Performs `call` until it succeeds (2xx), fails for good, or `policy` runs out.
    func perform(_ call: Call, policy: RetryPolicy) async throws(KiiCallError) -> Answer {
        let endpoint = "\(call.method) \(configuration.site)\(call.path)"
        var attempt = 0
        while true {
            attempt += 1
            do throws(KiiCallError.Kind) {
                return try await attemptOnce(call, attempt: attempt)
            } catch {
                // Why first: a cancelled request often surfaces as a closed channel; for the caller
                // it is a cancellation, so the outbox makes the row due again at once.
                if Task.isCancelled {
                    throw KiiCallError(
                        .cancelled,
                        operation: call.operation,
                        endpoint: endpoint,
                        principal: call.principal,
                        attempts: attempt
                    )
                }
                let failure = KiiCallError(
                    error,
                    operation: call.operation,
                    endpoint: endpoint,
                    principal: call.principal,
                    attempts: attempt
                )
                guard failure.isRetryable, attempt < policy.maxAttempts else { throw failure }
                var retryAfter: Duration?
                if case .httpStatus(_, _, _, let after) = error { retryAfter = after }
                let delay = policy.delay(afterAttempt: attempt, jitter: jitter(), retryAfter: retryAfter)
                logger.warning(
                    "Kii call failed; retrying",
                    metadata: [
                        "operation": "\(call.operation)", "endpoint": "\(endpoint)", "attempt": "\(attempt)",
                        "error": "\(failure.kindDescription)", "delay_ms": "\(delay.wholeMilliseconds)",
                    ]
                )
                do {
                    try await clock.sleep(for: delay)
                } catch {
                    throw KiiCallError(
                        .cancelled,
                        operation: call.operation,
                        endpoint: endpoint,
                        principal: call.principal,
                        attempts: attempt
                    )
                }
            }
        }
    }

    private func attemptOnce(_ call: Call, attempt: Int) async throws(KiiCallError.Kind) -> Answer {
        var request = HTTPClientRequest(url: configuration.site + call.path)
        request.method = .init(rawValue: call.method)
        request.headers.add(name: "Authorization", value: "Bearer \(call.token)")
        request.headers.add(name: "X-Kii-AppID", value: configuration.appID)
        if let appKey = configuration.appKey {
            request.headers.add(name: "X-Kii-AppKey", value: appKey)
        }
        request.headers.add(name: "Accept", value: "application/json")
        if let contentType = call.contentType {
            request.headers.add(name: "Content-Type", value: contentType)
            request.body = .bytes(call.body)
        }
        let started = ContinuousClock.now
        let status: Int
        let body: [UInt8]
        var headers: [String: String] = [:]
        do {
            let response = try await client.execute(
                request,
                timeout: .milliseconds(max(1, configuration.requestTimeout.wholeMilliseconds))
            )
            // The deadline covers the response head; Kii's answers are small and arrive with it,
            // and the size cap bounds a misdirected download.
            let collected = try await response.body.collect(upTo: configuration.maximumResponseBytes)
            status = Int(response.status.code)
            body = Array(collected.readableBytesView)
            for header in response.headers { headers[header.name.lowercased()] = header.value }
        } catch is CancellationError {
            throw .cancelled
        } catch let error as HTTPClientError {
            if error == .cancelled || Task.isCancelled { throw .cancelled }
            throw Self.classify(error, site: configuration.site)
        } catch {
            if Task.isCancelled { throw .cancelled }
            throw .transport(String(describing: error))
        }
        logger.debug(
            "Kii call",
            metadata: [
                "operation": "\(call.operation)", "method": "\(call.method)", "path": "\(call.path)",
                "status": "\(status)", "attempt": "\(attempt)",
                "ms": "\((ContinuousClock.now - started).wholeMilliseconds)",
            ]
        )
        if (200...299).contains(status) {
            return Answer(status: status, body: body)
        }
        let error = try? JSONDecoder().decode(KiiAPI.ErrorBody.self, from: Data(body))
        throw .httpStatus(
            status,
            errorCode: error?.errorCode,
            message: error?.message,
            retryAfter: Self.retryAfter(headers["retry-after"])
        )
    }

    static func classify(_ error: HTTPClientError, site: String) -> KiiCallError.Kind {
        let timeouts: [HTTPClientError] = [
            .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .tlsHandshakeTimeout,
            .getConnectionFromPoolTimeout,
        ]
        if timeouts.contains(error) { return .timedOut(String(describing: error)) }
        if [.invalidURL, .emptyHost, .emptyScheme, .alreadyShutdown].contains(error) {
            return .configuration("the HTTP client cannot send to \(site): \(error)")
        }
        if error == .remoteConnectionClosed { return .transport("Kii closed the connection before answering") }
        return .transport(String(describing: error))
    }

    /// `Retry-After` in seconds.
    static func retryAfter(_ value: String?) -> Duration? {
        guard let value, let seconds = Int(value.trimmingCharacters(in: .whitespaces)), seconds >= 0 else {
            return nil
        }
        return .seconds(seconds)
    }

    /// Decodes a 2xx answer's body.
    static func decode<Value: Decodable>(
        _ type: Value.Type,
        _ answer: Answer,
        call: Call,
        site: String
    ) throws(KiiCallError) -> Value {
        do {
            return try JSONDecoder().decode(Value.self, from: Data(answer.body))
        } catch {
            throw KiiCallError(
                .malformedResponse("HTTP \(answer.status) body is not Kii's \(Value.self)"),
                operation: call.operation,
                endpoint: "\(call.method) \(site)\(call.path)",
                principal: call.principal
            )
        }
    }
}
