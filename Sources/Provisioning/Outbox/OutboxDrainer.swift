import Cloud
import Foundation
import Logging
import NBGWCore
import Registry

/// Sends the registry's outbox to the cloud: claims due rows (oldest first, one at a time per
/// device), sends each with its idempotency key through ``OutboxSender``, and settles it exactly
/// once: done, rescheduled with backoff, or dead. A drainer that dies mid-row leaves the row in flight until its lease
/// runs out; the next drain sends it again and the cloud answers the repeated key with its first
/// answer, so the effect happens once.
///
/// Used by `nbgw cloud sync` (one ``drain(maxRows:)``) and the daemon (``run(every:clock:)``).
public struct OutboxDrainer: Sendable {
    public let sender: OutboxSender
    /// Rows claimed per round.
    public let batchSize: Int

    /// - Parameters:
    ///   - owner: the lease owner written on claimed rows; by default one unique to this drainer.
    ///   - logger: where drains and unsent rows are logged; nil logs nothing.
    public init(
        registry: Registry,
        cloud: any CloudService,
        owner: String? = nil,
        batchSize: Int = 16,
        logger: Logger? = nil
    ) {
        self.init(
            sender: OutboxSender(
                registry: registry,
                cloud: cloud,
                owner: owner
                    ?? "drainer-\(ProcessInfo.processInfo.processIdentifier)-\(IdempotencyKey.make().suffix(8))",
                logger: logger
            ),
            batchSize: batchSize
        )
    }

    public init(sender: OutboxSender, batchSize: Int = 16) {
        self.sender = sender
        self.batchSize = max(1, batchSize)
    }

    var registry: Registry { sender.registry }
    var owner: String { sender.owner }

    /// Sends every due row (up to `maxRows`). Stops early when the configuration is wrong or the
    /// cloud is unreachable: every other row would fail the same way.
    public func drain(maxRows: Int = 10_000) async -> OutboxDrainReport {
        var report = OutboxDrainReport()
        var handled = 0
        guard sender.canSend else {
            // Nothing is claimed: every row needs the credentials this process cannot open.
            report.stoppedBy = "queued; the daemon sends them: " + sender.credentialsUnavailable("the modules")
            if let counts = try? registry.outbox.counts() {
                report.remaining = Dictionary(uniqueKeysWithValues: counts.map { ($0.key.rawValue, $0.value) })
            }
            return report
        }
        drainLoop: while handled < maxRows {
            let batch: [Registry.OutboxEntry]
            do {
                batch = try registry.outbox.claim(
                    owner: owner,
                    lease: sender.lease,
                    limit: min(max(batchSize, sender.cloud.preferredBatchSize), maxRows - handled)
                )
            } catch {
                report.stoppedBy = error.description
                break
            }
            if batch.isEmpty { break }
            if sender.cloud.preferredBatchSize > 1 {
                // Every row of the round is sent at once: record them all, then stop if one says so.
                let results = await sender.process(batch: batch, patience: .background)
                var stop: String?
                for (entry, result) in zip(batch, results) {
                    handled += 1
                    if let reason = record(result, entry, into: &report), stop == nil { stop = reason }
                }
                if let stop {
                    report.stoppedBy = stop
                    break drainLoop
                }
                continue
            }
            for (index, entry) in batch.enumerated() {
                handled += 1
                let result = await sender.process(entry, patience: .background)
                let stop = record(result, entry, into: &report)
                if let stop {
                    report.stoppedBy = stop
                    release(batch[(index + 1)...], reason: stop)
                    break drainLoop
                }
            }
        }
        if let counts = try? registry.outbox.counts() {
            report.remaining = Dictionary(uniqueKeysWithValues: counts.map { ($0.key.rawValue, $0.value) })
        }
        sender.logger.info(
            "cloud outbox drained",
            metadata: [
                "sent": "\(report.sent)", "rescheduled": "\(report.rescheduled)", "dead": "\(report.dead)",
                "stopped_by": "\(report.stoppedBy ?? "-")",
            ]
        )
        return report
    }

    /// Drains every `interval` until the task is cancelled (the daemon).
    public func run(every interval: Duration, clock: any Clock<Duration> = ContinuousClock()) async {
        while !Task.isCancelled {
            _ = await drain()
            do {
                try await clock.sleep(for: interval)
            } catch {
                return
            }
        }
    }

    /// Returns a reason to stop, or nil to go on.
    private func record(
        _ result: OutboxSender.Result,
        _ entry: Registry.OutboxEntry,
        into report: inout OutboxDrainReport
    ) -> String? {
        func failure(_ error: NBGWError, final: Bool) {
            report.failures.append(
                OutboxDrainReport.Failure(
                    outboxID: entry.id,
                    operation: entry.operation.rawValue,
                    subject: entry.subject,
                    code: error.code.rawValue,
                    message: error.message,
                    final: final
                )
            )
        }
        switch result {
        case .done, .registered:
            report.sent += 1
            return nil
        case .dead(let error):
            report.dead += 1
            failure(error, final: true)
            return nil
        case .claimLost(let error):
            failure(error, final: false)
            return nil
        case .rescheduled(let error):
            // Why stop: a row failed after the whole retry policy, so the cloud is unreachable or
            // overloaded; hammering it with every other row would only delay them all.
            report.rescheduled += 1
            failure(error, final: false)
            return "the cloud is unavailable (\(error.code.rawValue)): \(error.message)"
        case .stopped(let error):
            report.rescheduled += 1
            failure(error, final: false)
            return "fix the cloud configuration (\(error.code.rawValue)): \(error.message)"
        case .leftForDaemon(let error):
            // Every other row that needs a credential would be left the same way.
            failure(error, final: false)
            return error.message
        }
    }

    /// Gives back rows claimed but not sent, due again at once.
    private func release(_ rows: ArraySlice<Registry.OutboxEntry>, reason: String) {
        for row in rows {
            _ = try? registry.outbox.fail(
                id: row.id,
                owner: owner,
                code: "NOT_SENT",
                message: "drain stopped before sending: \(reason)",
                retryAfter: .zero
            )
        }
    }
}
