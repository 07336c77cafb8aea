import Foundation
import Registry

/// What a sweep of the batch directory removes and which jobs it gives up (pure: the files, the
/// jobs and the time in, the plan out; ``ConsoleBatches/sweep()`` carries it out).
///
/// - A running job (in this process) keeps its upload and its report.
/// - An open job (interrupted: the daemon stopped, a failure, a crash) keeps both, so it can be
///   resumed, until `retention` after its last commit; then it is given up (`abandoned_at`) and
///   both go. An open job whose upload is gone is given up at once (nothing can resume it).
/// - A finished (or given up) job needs no upload; its report stays for `retention` after the
///   job's last change.
/// - A file of ours (`upload-…`) that no job names (an upload cut off by a crash) goes once it is
///   ``orphanAge`` old; other files are never touched.
struct ConsoleBatchRetention: Sendable {
    struct Plan: Sendable, Equatable {
        /// Files to delete.
        var remove: [String] = []
        /// Open jobs to give up.
        var abandon: [Int64] = []
    }

    /// Why an hour: an upload in progress or a report being written is rewritten every few
    /// milliseconds, so only a file nobody has written for that long can be an orphan; one
    /// written by another process on the same directory (`nbgw ingest serve`) is left alone too.
    static let orphanAge: TimeInterval = 3600

    /// How long a report (and an interrupted job's upload) is kept after the job's last change.
    let retention: Duration

    func plan(
        files: [ConsoleBatchFiles.Entry],
        jobs: [BatchJobRecord],
        active: Set<String>,
        now: Date
    ) -> Plan {
        let cutoff = now.addingTimeInterval(-Double(retention.components.seconds))
        let present = Set(files.map(\.path))
        var keep = active
        var remove = Set<String>()
        var known = Set<String>()
        var plan = Plan()
        for job in jobs {
            known.insert(job.inputPath)
            known.insert(job.reportPath)
            if active.contains(job.inputPath) {
                keep.insert(job.reportPath)
                continue
            }
            if job.isOpen {
                if job.updatedAt < cutoff {
                    plan.abandon.append(job.id)
                    remove.formUnion([job.inputPath, job.reportPath])
                } else if !present.contains(job.inputPath) {
                    plan.abandon.append(job.id)
                    keep.insert(job.reportPath)
                } else {
                    keep.formUnion([job.inputPath, job.reportPath])
                }
            } else {
                remove.insert(job.inputPath)
                if job.updatedAt >= cutoff { keep.insert(job.reportPath) } else { remove.insert(job.reportPath) }
            }
        }
        for file in files where !keep.contains(file.path) {
            let name = (file.path as NSString).lastPathComponent
            guard name.hasPrefix(ConsoleBatchFiles.uploadPrefix) else { continue }
            if remove.contains(file.path)
                || (!known.contains(file.path) && now.timeIntervalSince(file.modified) > Self.orphanAge)
            {
                plan.remove.append(file.path)
            }
        }
        plan.remove.sort()
        return plan
    }
}
