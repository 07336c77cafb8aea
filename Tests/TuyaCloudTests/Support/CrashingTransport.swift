import Foundation
import TuyaCloud

/// Forwards requests to a real transport; for the chosen request, it lets the cloud act and then
/// never returns, as if the process died between the cloud call and the local commit. The test
/// abandons the stuck task ("kills" it) and later releases it to show a zombie cannot settle the row.
final class CrashingTransport: CloudHTTPTransport, @unchecked Sendable {
    private let inner: any CloudHTTPTransport
    private let crashWhen: @Sendable (CloudHTTPRequest) -> Bool
    private let lock = NSLock()
    private var stuck: CheckedContinuation<Void, Never>?
    private var crashed: CheckedContinuation<Void, Never>?
    private var didCrash = false

    init(_ inner: any CloudHTTPTransport, crashWhen: @escaping @Sendable (CloudHTTPRequest) -> Bool) {
        self.inner = inner
        self.crashWhen = crashWhen
    }

    func send(_ request: CloudHTTPRequest, timeout: Duration) async throws -> CloudHTTPResponse {
        let response = try await inner.send(request, timeout: timeout)
        let crash = lock.withLock { () -> Bool in
            guard !didCrash, crashWhen(request) else { return false }
            didCrash = true
            return true
        }
        guard crash else { return response }
        await withCheckedContinuation { continuation in
            lock.withLock {
                stuck = continuation
                crashed?.resume()
                crashed = nil
            }
        }
        throw CloudTransportError(.connection, "the process was killed")
    }

    /// Returns once a request has reached the cloud and the sender is stuck.
    func waitForCrash() async {
        await withCheckedContinuation { continuation in
            lock.withLock {
                if stuck != nil {
                    continuation.resume()
                } else {
                    crashed = continuation
                }
            }
        }
    }

    /// Lets the stuck sender continue (with a transport error).
    func releaseZombie() {
        lock.withLock {
            stuck?.resume()
            stuck = nil
        }
    }

    func shutdown() async { await inner.shutdown() }
}
