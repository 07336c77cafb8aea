#if canImport(Glibc)
import Glibc
#endif

/// Runs every task of the process on the fuzzer's thread, one job at a time, in the order they were
/// scheduled: the session's reader, dispatcher and timers become a deterministic function of the
/// input, so "the same bytes in other chunks give the same events" is a property that can fail
/// only for a real reason, never for a thread race.
///
/// How: the Swift runtime's `swift_task_enqueueGlobal_hook` (the hook swift-concurrency-extras'
/// `withMainSerialExecutor` uses) sends every job meant for the global executor to ``jobs``;
/// ``drain()`` runs them until none is left. Nothing here sleeps in real time: the session's
/// clock is a manual one, moved only when everything has settled.
enum Scheduler {
    typealias Original = @convention(thin) (UnownedJob) -> Void
    typealias Hook = @convention(thin) (UnownedJob, Original) -> Void

    final class Executor: SerialExecutor, @unchecked Sendable {
        var jobs: [UnownedJob] = []

        func enqueue(_ job: consuming ExecutorJob) {
            jobs.append(UnownedJob(job))
        }

        func asUnownedSerialExecutor() -> UnownedSerialExecutor {
            UnownedSerialExecutor(ordinary: self)
        }
    }

    nonisolated(unsafe) static let executor = Executor()
    nonisolated(unsafe) static var installed = false

    static func install() {
        guard !installed else { return }
        installed = true
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "swift_task_enqueueGlobal_hook") else {
            fatalError("swift_task_enqueueGlobal_hook is missing from the Swift runtime")
        }
        symbol.assumingMemoryBound(to: Hook?.self).pointee = { job, _ in
            Scheduler.executor.jobs.append(job)
        }
    }

    /// Runs jobs until none is left (each job may schedule more).
    static func drain() {
        var index = 0
        while index < executor.jobs.count {
            let job = executor.jobs[index]
            index += 1
            job.runSynchronously(on: executor.asUnownedSerialExecutor())
            if index > 4096 {
                executor.jobs.removeFirst(index)
                index = 0
            }
        }
        executor.jobs.removeAll(keepingCapacity: true)
    }
}
