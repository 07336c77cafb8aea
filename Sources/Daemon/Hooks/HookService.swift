import Foundation
import Gateway
import Logging
import PosixSupport
import Prometheus
import Registry
import ServiceLifecycle
import Synchronization

/// Runs the executables of `[hooks] directory` on every modem state change
/// (docs/operations.md, "State-change hooks").
///
/// The gateway's ``Gateway/stateChanges()`` feed a ``HookQueue`` of at most ``queueCapacity``
/// changes; ``concurrency`` workers take them, one port's changes in order and never two at a
/// time, and run every hook of the directory (``HookDirectory``, byte order of names) for each,
/// one after the other, through ``HookRunner`` (bounded by `[hooks] timeout`). A supervisor never
/// waits for any of it: the state stream buffers, and a full queue drops its oldest change
/// (a warning, and `nbgw_hook_dropped_total`).
///
/// Graceful shutdown stops it at once: changes not yet worked on are dropped (logged), running
/// hooks get SIGTERM, then SIGKILL ``HookRunner/killGrace`` later. The `absent` changes of the
/// daemon's own stop therefore run no hooks.
final class HookService: Service, CustomStringConvertible {
    /// Changes waiting at most. Why 256: a whole 32-module gateway going through its seven
    /// start-up states twice fits, while a stuck hook with the default 10 s timeout delays a
    /// port's changes by minutes, not hours, before the oldest are dropped.
    static let queueCapacity = 256
    /// Hooks running at once at most. Why 4: on two cores, four short scripts keep up with a
    /// gateway's state changes, and four stuck ones still leave the daemon its threads.
    static let concurrency = 4

    let directory: HookDirectory
    let timeout: Duration
    /// Subscribed before the gateway runs, so that no early change is missed.
    let changes: AsyncStream<ModemStateChange>
    let registry: Registry
    let logger: Logger
    let metrics: HookMetrics
    let capacity: Int
    let workers: Int
    /// Problems already warned about (a refused hook is reported once, not at every change).
    private let warned = Mutex<Set<String>>([])

    var description: String { "hooks" }

    init(
        directory: String,
        timeout: Duration,
        changes: AsyncStream<ModemStateChange>,
        registry: Registry,
        metricsRegistry: PrometheusCollectorRegistry,
        logger: Logger,
        capacity: Int = HookService.queueCapacity,
        workers: Int = HookService.concurrency
    ) {
        self.directory = HookDirectory(path: directory)
        self.timeout = timeout
        self.changes = changes
        self.registry = registry
        self.metrics = HookMetrics(registry: metricsRegistry)
        self.logger = logger
        self.capacity = capacity
        self.workers = workers
    }

    func run() async throws {
        logger.info(
            "state-change hooks enabled",
            metadata: ["hooks.directory": "\(directory.path)", "hooks.timeout": "\(timeout)"]
        )
        // Graceful shutdown cancels the workers: running hooks are stopped, waiting changes dropped.
        await cancelWhenGracefulShutdown { await self.serve() }
    }

    /// Feeds the queue from the state changes and runs the workers, until the changes end or the
    /// task is cancelled.
    func serve() async {
        let queue = HookQueue(capacity: capacity)
        await withDiscardingTaskGroup { group in
            for _ in 0..<workers {
                group.addTask {
                    while let event = await queue.next() {
                        await self.work(on: event)
                        queue.done(event)
                    }
                }
            }
            group.addTask {
                await self.feed(queue)
                let left = queue.finish()
                if !left.isEmpty {
                    self.logger.notice(
                        "hooks not run: the daemon is stopping",
                        metadata: ["hooks.dropped": "\(left.count)"]
                    )
                }
            }
        }
    }

    /// Queues every change of state (a change that only adds the IMEI to the same state is not one).
    func feed(_ queue: HookQueue) async {
        var last: [String: ModemState] = [:]
        for await change in changes {
            let previous = last[change.port]
            last[change.port] = change.state
            guard previous != change.state else { continue }
            let row = try? registry.modems.find(imeiOrPort: change.imei ?? change.port)
            let sameModule = row.flatMap { $0.imei == change.imei ? $0 : nil }
            let event = HookEvent(
                change: change,
                previousState: previous,
                time: Date(),
                model: sameModule?.model,
                firmware: sameModule?.firmware
            )
            if let dropped = queue.push(event) {
                metrics.countDropped()
                logger.warning(
                    "hook queue full: the oldest state change is dropped, its hooks do not run",
                    metadata: metadata(dropped).merging(["hooks.queue": "\(capacity)"]) { $1 }
                )
            }
        }
    }

    /// Runs every hook of the directory for `event`, in name order.
    func work(on event: HookEvent) async {
        let entries: [HookDirectory.Entry]
        switch directory.entries() {
        case .failure(let problem):
            warnOnce(problem.description, "hooks cannot run", [:])
            return
        case .success(let found):
            entries = found
        }
        for entry in entries {
            switch entry {
            case .skipped(let name, let reason):
                logger.debug("not a hook: \(reason)", metadata: ["hook": "\(name)"])
            case .refused(let name, let reason):
                warnOnce(reason, "hook refused: \(reason)", ["hook": "\(name)"])
            case .hook(let name, let path):
                guard !Task.isCancelled else { return }
                let result = await HookRunner.run(
                    path: path,
                    environment: event.environment(store: registry.path),
                    timeout: timeout
                )
                metrics.count(result)
                report(result, hook: name, event: event)
            }
        }
    }

    /// One log record per run: failures as warnings with the hook, the module and the output.
    func report(_ result: HookResult, hook: String, event: HookEvent) {
        var metadata = metadata(event)
        metadata["hook"] = "\(hook)"
        metadata["duration_ms"] = "\(result.duration.wholeMilliseconds)"
        if !result.output.isEmpty { metadata["output"] = "\(result.outputText)" }
        switch result.outcome {
        case .exited(0):
            logger.log(level: result.output.isEmpty ? .debug : .info, "hook ran", metadata: metadata)
        case .exited(let status):
            metadata["exit_status"] = "\(status)"
            logger.warning("hook failed: exit status \(status)", metadata: metadata)
        case .signalled(let signal):
            metadata["signal"] = "\(signal)"
            logger.warning("hook failed: ended by signal \(signal) (\(Self.signalName(signal)))", metadata: metadata)
        case .timedOut:
            let advice = "make it finish sooner or raise [hooks] timeout"
            logger.warning(
                "hook timed out after \(timeout): stopped with SIGTERM, then SIGKILL; \(advice)",
                metadata: metadata
            )
        case .cancelled:
            logger.info("hook stopped: the daemon is stopping", metadata: metadata)
        case .notStarted(let code):
            metadata["errno"] = "\(code)"
            let hint = code == ENOEXEC ? ": give the script a #! line" : ""
            logger.warning("hook cannot start: \(Errno.message(code))\(hint)", metadata: metadata)
        }
    }

    /// The module's facts, as every hook record carries them.
    func metadata(_ event: HookEvent) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["port": "\(event.change.port)", "state": "\(event.change.state.rawValue)"]
        if let imei = event.change.imei { metadata["imei"] = "\(imei)" }
        if let previous = event.previousState { metadata["previous_state"] = "\(previous.rawValue)" }
        return metadata
    }

    /// Warns the first time `key` comes up, then logs it at debug level.
    func warnOnce(_ key: String, _ message: String, _ metadata: Logger.Metadata) {
        let first = warned.withLock { $0.insert(key).inserted }
        logger.log(level: first ? .warning : .debug, "\(message)", metadata: metadata)
    }

    static func signalName(_ signal: Int32) -> String {
        guard let name = strsignal(signal) else { return "signal \(signal)" }
        return String(cString: name)
    }
}

extension Duration {
    /// Whole milliseconds.
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
