import Foundation
import Pairing
import Provisioning

/// A scanning session at a bench: every scan is bound as it arrives through
/// ``Provisioning/BindingService`` (the rules and codes of `nbgw bind`, local first: with a slow
/// or unreachable cloud a scan answers within the binding service's cloud wait, `queued`).
///
/// - The same payload again within ``repeatWindow`` (a scanner reading one label twice, or held
///   over it) is a ``ScanOutcome/Status/repeat``: not bound again, not a failure.
/// - A rejected scan (too long, control characters, an unknown key) fails with its code and the
///   session goes on; so does every refused bind.
/// - A pairing token is used by the first scan that binds with it (tokens are single use); later
///   scans bind without one.
/// - With a report, each outcome is written before ``handle(_:)`` returns.
public actor ScanSession {
    /// The default repeat window. Why 2 s: a scanner in continuous mode re-reads a label every
    /// 100–500 ms while it is in view; a technician scanning the next module takes longer than 2 s.
    public static let defaultRepeatWindow: Duration = .seconds(2)

    public let binding: BindingService
    public let account: String
    public let home: String
    public let repeatWindow: Duration
    public let operatorName: String?
    private var token: String?
    /// Time since the session started, on the binding service's clock (tests move it by hand).
    private let elapsed: @Sendable () -> Duration
    private let report: ScanReportWriter?
    private let timeout: Duration
    public private(set) var tallies = ScanTallies()
    private var lastScan: (payload: String, number: Int, at: Duration)?

    public init(
        binding: BindingService,
        account: String,
        home: String,
        token: String? = nil,
        operator: String? = nil,
        repeatWindow: Duration = ScanSession.defaultRepeatWindow,
        timeout: Duration = BindingRules.defaultActivationTimeout,
        report: ScanReportWriter? = nil
    ) {
        self.binding = binding
        self.account = account
        self.home = home
        self.token = token
        self.operatorName = `operator`
        self.repeatWindow = repeatWindow
        self.timeout = timeout
        self.elapsed = ScanSession.stopwatch(binding.clock)
        self.report = report
    }

    /// Binds one scan (or refuses it) and records the outcome.
    public func handle(_ read: ScanRead) async throws(ScanReportError) -> ScanOutcome {
        tallies.scans += 1
        let number = tallies.scans
        let now = elapsed()
        var outcome: ScanOutcome
        switch read {
        case .rejected(let rejection):
            outcome = ScanOutcome(
                number: number,
                status: .failed,
                code: rejection.code.rawValue,
                message: rejection.description
            )
        case .payload(let payload):
            if let previous = lastScan, previous.payload == payload, now - previous.at < repeatWindow {
                lastScan = (payload, previous.number, now)
                outcome = ScanOutcome(
                    number: number,
                    status: .repeat,
                    payload: payload,
                    message: "the same code as scan \(previous.number) within \(describe(repeatWindow)): ignored",
                    repeatOf: previous.number
                )
            } else {
                lastScan = (payload, number, now)
                outcome = await bind(payload, number: number)
            }
        }
        switch outcome.status {
        case .bound: tallies.bound += 1
        case .unchanged: tallies.unchanged += 1
        case .failed: tallies.failed += 1
        case .repeat: tallies.repeats += 1
        }
        if outcome.cloudSync == "queued" { tallies.queued += 1 }
        try report?.append(outcome, at: Date())
        return outcome
    }

    static func stopwatch<C: Clock>(_ clock: C) -> @Sendable () -> Duration where C.Duration == Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }

    private func bind(_ payload: String, number: Int) async -> ScanOutcome {
        do {
            let result = try await binding.bind(
                qr: payload,
                account: account,
                home: home,
                token: token,
                source: .cli,
                operator: operatorName,
                timeout: timeout
            )
            let binding = result.outcome.binding
            if token != nil, result.outcome.status == .bound { token = nil }
            let status: ScanOutcome.Status = result.outcome.status == .bound ? .bound : .unchanged
            return ScanOutcome(
                number: number,
                status: status,
                payload: payload,
                message: status == .bound
                    ? "bound \(binding.deviceID) → \(binding.account)/\(binding.home)"
                    : "already bound to \(binding.account)/\(binding.home)",
                deviceID: binding.deviceID,
                imei: binding.imei,
                account: binding.account,
                home: binding.home,
                cloudSync: result.syncState
            )
        } catch {
            // The module the scan names, when the store knows it: the report row says which
            // module was refused (DEVICE_ALREADY_BOUND, PRODUCT_NOT_ALLOWED, a cloud timeout…).
            let device = binding.localDevice(qr: payload)
            return ScanOutcome(
                number: number,
                status: .failed,
                payload: payload,
                code: error.code.rawValue,
                message: error.message,
                deviceID: device?.deviceID,
                imei: device?.imei
            )
        }
    }

    private func describe(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }
}
