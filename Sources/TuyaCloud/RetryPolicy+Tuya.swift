import Cloud

extension RetryPolicy {
    /// Envelope codes worth retrying after a pause.
    public static let retryableCodes: Set<Int> = [500, 1110, 1111, 1199]
    /// Envelope codes that mean "get a new access token and resend".
    public static let reauthenticationCodes: Set<Int> = [1010, 1011]

    /// Whether a failed attempt is worth repeating.
    public func isRetryable(_ kind: TuyaCloudError.Kind) -> Bool {
        switch kind {
        case .transport, .timedOut: true
        case .httpStatus(let status, _): status == 429 || (500...599).contains(status)
        case .api(let code, _): RetryPolicy.retryableCodes.contains(code)
        case .malformedResponse, .configuration, .cancelled: false
        }
    }
}
