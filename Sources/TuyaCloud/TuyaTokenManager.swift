import Foundation

/// Holds the project's access token (pairing-anchors §1.5): fetched with `grant_type=1`, valid
/// `expire_time` seconds (7200), refreshed ``CloudConfiguration/tokenRefreshMargin`` before it
/// expires with the single-use refresh token, and dropped when the cloud answers 1010/1011 so the
/// next call authenticates again.
///
/// Concurrent callers share one fetch: a refresh token works once, so two parallel refreshes would
/// make the second fail and throw away a valid pair.
actor TuyaTokenManager {
    struct Token: Sendable, Equatable {
        var accessToken: String
        var refreshToken: String
        var expiresAt: Date
        var uid: String
    }

    enum Fetch: Sendable, Equatable {
        case grant
        case refresh(String)
    }

    typealias Fetcher = @Sendable (Fetch) async throws(TuyaCloudError) -> Token

    private var current: Token?
    private var pending: Task<Token, any Error>?

    /// A token valid for at least `margin` from `now`, fetching or refreshing one when needed.
    func token(now: Date, margin: Duration, fetch: @escaping Fetcher) async throws(TuyaCloudError) -> Token {
        if let current, now.addingTimeInterval(margin.seconds) < current.expiresAt {
            return current
        }
        if let pending {
            return try await TuyaTokenManager.value(of: pending)
        }
        let previous = current
        let task = Task<Token, any Error> {
            if let previous {
                do throws(TuyaCloudError) {
                    return try await fetch(.refresh(previous.refreshToken))
                } catch  where error.isTransient || error.kind == .cancelled {
                    throw error
                } catch {
                    // The refresh token was refused (already used, or the pair was revoked): the
                    // documented way back is a new grant.
                }
            }
            return try await fetch(.grant)
        }
        pending = task
        do throws(TuyaCloudError) {
            let token = try await TuyaTokenManager.value(of: task)
            pending = nil
            current = token
            return token
        } catch {
            pending = nil
            throw error
        }
    }

    /// Forgets `accessToken` if it is the current one: the cloud said it is expired or invalid.
    func invalidate(_ accessToken: String) {
        if current?.accessToken == accessToken {
            current = nil
        }
    }

    private static func value(of task: Task<Token, any Error>) async throws(TuyaCloudError) -> Token {
        do {
            return try await SharedTaskWaiter.value(of: task)
        } catch let error as TuyaCloudError {
            throw error
        } catch {
            throw TuyaCloudError(.cancelled, operation: "get an access token", endpoint: CloudAPI.tokenPath)
        }
    }
}
