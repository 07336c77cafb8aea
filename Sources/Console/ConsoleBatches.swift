import Cloud
import Foundation
import Hummingbird
import Logging
import NBGWCore
import Provisioning
import Registry
import Synchronization

/// CSV batches started from the console (docs/console.md, "Batches"). Each upload is streamed into a
/// file of its own in the batch directory (0700; the file 0600) and bound by ``BatchBinder``, the
/// code of `nbgw bind --csv`, on a thread of its own; at most
/// ``ConsoleConfiguration/maxRunningBatches`` at once (uploads included), another is refused with a
/// time to retry. The jobs are the store's (`batch_job`), so the list and an interrupted job survive
/// a restart. ``stop()`` ends the running batches at a chunk boundary (the daemon's graceful stop):
/// they show as interrupted, with a resume that binds the rest. ``sweep()`` deletes what the job
/// ends and the retention no longer need.
public final class ConsoleBatches: Sendable {
    /// How a run ended, for the console's trail.
    public struct End: Sendable {
        public var jobID: Int64
        public var name: String
        /// Who started this run (the upload's operator, or whoever resumed it).
        public var operatorName: String
        public var resumed: Bool
        public var summary: BatchSummary?
        public var error: NBGWError?
    }

    /// How often ``sweepPeriodically(every:clock:)`` sweeps by default. Why an hour: the retention
    /// counts in days and every upload sweeps first (so the quota is always measured fresh); the
    /// timer only catches what ages out while nobody uploads, at the cost of one directory listing
    /// and one read of the store.
    public static let sweepInterval: Duration = .seconds(3600)
    /// Why 256 KiB per write of an upload: about 250 queue hops for a 60 MiB file, and at most that
    /// much held besides what the listener buffers.
    static let writeSize = 256 * 1024
    /// Failures of runs kept for the page. Why 50: as many as the page lists.
    static let failuresKept = 50

    /// An upload or a run in this process: each holds one of the ``ConsoleConfiguration/maxRunningBatches`` places.
    struct Slot: Sendable {
        var operatorName: String
        var name: String
        /// Its upload and report, which no sweep may touch meanwhile.
        var paths: [String] = []
        var jobID: Int64?
        /// A binder thread works on it (``stop()`` waits for these).
        var running = false
        var bytesTotal: Int64 = 0
        var bytesAtStart: Int64 = 0
        var bytesDone: Int64 = 0
        var runStarted: ContinuousClock.Instant?
        /// What the directory holds besides this job's report; with the report, the quota's measure while it runs.
        var baseline: Int64?
        /// The report took the directory past the quota: the run stops at its next chunk boundary.
        var overQuota = false
    }

    struct State: Sendable {
        var nextSlot = 1
        var slots: [Int: Slot] = [:]
        var stopping = false
        var idle: [CheckedContinuation<Void, Never>] = []
        /// Uploads being received, woken by ``stop()``: a client that stops sending must not hold
        /// the listener's graceful stop (and so the daemon's) past the grace period.
        var receiving: [Int: CheckedContinuation<Void, any Error>] = [:]
        var failures: [Int64: NBGWError] = [:]
        var failureOrder: [Int64] = []
        var uploads = 0
    }

    let configuration: ConsoleConfiguration
    let registry: Registry
    let binder: BatchBinder
    let files: ConsoleBatchFiles
    let quota: ConsoleBatchQuota
    let retention: ConsoleBatchRetention
    let logger: Logger
    private let state = Mutex(State())

    public init(configuration: ConsoleConfiguration, registry: Registry, cloud: any CloudService, logger: Logger) {
        self.configuration = configuration
        self.registry = registry
        self.binder = BatchBinder(registry: registry, cloud: cloud)
        self.files = ConsoleBatchFiles(directory: configuration.batchDirectory)
        self.quota = ConsoleBatchQuota(
            maxUploadBytes: Int64(configuration.maxCSVBytes),
            quotaBytes: configuration.batchQuotaBytes
        )
        self.retention = ConsoleBatchRetention(retention: configuration.batchRetention)
        self.logger = logger
    }

    // MARK: Uploads

    /// Streams `body` into a new upload file and starts binding it; returns the job's id once the
    /// store has opened it (a file the batch refuses at its header is refused here, and deleted).
    ///
    /// - Parameter declaredLength: the request's `Content-Length`, when it has one: a file too large
    ///   is refused before a byte of it is written.
    /// - Throws: ``ConsoleBatchRefusal`` (another batch runs: 429 with a time to retry; too large or
    ///   over the quota: 413; the daemon stopping: 503), or the batch's own refusal (`NBGWError`).
    public func upload<Body: AsyncSequence & Sendable>(
        _ body: Body,
        declaredLength: Int64?,
        name: String,
        account: String?,
        home: String?,
        operator operatorName: String,
        ended: @escaping @Sendable (End) -> Void
    ) async throws -> Int64 where Body.Element == ByteBuffer {
        let safeName = Self.fileName(name)
        let slot = try reserve(operator: operatorName, name: safeName)
        var handedOver = false
        defer { if !handedOver { release(slot) } }
        if let declaredLength, let refusal = quota.refusal(bytes: declaredLength, used: 0) { throw refusal }
        let used = try await sweepAndMeasure()
        if let refusal = quota.refusal(bytes: declaredLength ?? 0, used: used) { throw refusal }
        let input = try await newUploadPath(name: safeName)
        let report = input + ".report.csv"
        state.withLock { $0.slots[slot]?.paths = [input, report] }
        try await untilStopped(slot: slot) { [self] in try await receive(body, into: input, used: used, slot: slot) }
        state.withLock { state in
            let received = state.slots[slot]?.bytesTotal ?? 0
            state.slots[slot]?.baseline = used + received
        }
        handedOver = true
        return try await start(
            slot: slot,
            request: BatchRequest(
                inputPath: input,
                reportPath: report,
                defaultAccount: account,
                defaultHome: home,
                operator: operatorName
            ),
            name: safeName,
            resumed: false,
            ended: ended
        )
    }

    /// Resumes the interrupted job `id` from its last committed chunk: the rows before it are not
    /// read again, the rest are bound once; the binds of this run carry `operatorName`.
    public func resume(
        _ id: Int64,
        operator operatorName: String,
        ended: @escaping @Sendable (End) -> Void
    ) async throws -> Int64 {
        guard let job = try await job(id) else {
            throw NBGWError(.notFound, "no console batch \(id); the batch page lists them")
        }
        switch job.status {
        case .running:
            throw ConsoleBatchRefusal(NBGWError(.rateLimited, "batch \(id) (\(job.name)) is running already"))
        case .finished:
            throw NBGWError(.invalidArgument, "batch \(id) (\(job.name)) is finished: nothing to resume")
        case .abandoned:
            throw NBGWError(
                .notFound,
                "batch \(id) (\(job.name)) was given up and its upload deleted; upload the file again "
                    + "(rows already bound come back unchanged)"
            )
        case .interrupted:
            break
        }
        let slot = try reserve(operator: operatorName, name: job.name)
        var handedOver = false
        defer { if !handedOver { release(slot) } }
        let record = job.record
        state.withLock { $0.slots[slot]?.paths = [record.inputPath, record.reportPath] }
        let present = try await files.perform { [files] () throws(NBGWError) -> Bool in files.exists(record.inputPath) }
        guard present else {
            try await files.perform { [registry] () throws(NBGWError) in
                _ = try registry.bindings.abandonBatchJob(id: record.id)
            }
            throw NBGWError(
                .notFound,
                "batch \(id)'s upload \(record.inputPath) is gone, so it cannot be resumed (it is now given up); "
                    + "upload the file again (rows already bound come back unchanged)"
            )
        }
        let used = try await sweepAndMeasure()
        let reportSize = ConsoleBatchFiles.size(of: record.reportPath)
        if used >= configuration.batchQuotaBytes {
            throw ConsoleBatchRefusal(
                Self.overQuota(id: id, name: job.name, used: used, quota: configuration.batchQuotaBytes)
            )
        }
        state.withLock { $0.slots[slot]?.baseline = used - reportSize }
        handedOver = true
        return try await start(
            slot: slot,
            request: BatchRequest(inputPath: record.inputPath, reportPath: record.reportPath, operator: operatorName),
            name: job.name,
            resumed: true,
            ended: ended
        )
    }

    /// Takes one of the places, or says who holds them and when to try again.
    func reserve(operator operatorName: String, name: String) throws(ConsoleBatchRefusal) -> Int {
        let maximum = configuration.maxRunningBatches
        return try state.withLock { (state) throws(ConsoleBatchRefusal) -> Int in
            if state.stopping { throw Self.stoppingRefusal }
            if state.slots.count >= maximum, let holder = state.slots.min(by: { $0.key < $1.key })?.value {
                throw Self.busy(holder, maximum: maximum)
            }
            let id = state.nextSlot
            state.nextSlot += 1
            state.slots[id] = Slot(operatorName: operatorName, name: name)
            return id
        }
    }

    /// Frees a place; wakes ``stop()`` once no batch runs.
    func release(_ slot: Int) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.slots[slot] = nil
            guard !state.slots.values.contains(where: \.running) else { return [] }
            defer { state.idle = [] }
            return state.idle
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Batch `id` cannot go on: the batch files hold `used` bytes of their `quota`.
    static func overQuota(id: Int64, name: String, used: Int64, quota: Int64, line: Int? = nil) -> NBGWError {
        let stopped = line.map { " stopped at line \($0):" } ?? " cannot go on:"
        return NBGWError(
            .payloadTooLarge,
            "batch \(id) (\(name))\(stopped) its report would take the console's batch files past their quota "
                + "(\(ConsoleBatchQuota.mebibytes(used)) of \(ConsoleBatchQuota.mebibytes(quota))); download the "
                + "reports you need and wait for them to expire ([console] batch_retention), or raise "
                + "[console] batch_quota, then resume it"
        )
    }

    static let stoppingRefusal = ConsoleBatchRefusal(
        NBGWError(.daemonNotRunning, "the gateway is stopping; upload the file again once it runs"),
        retryAfterSeconds: 30
    )

    /// "Batch 12 (tray.csv), started by ana, is running (45 % done)…", with a time to retry from its
    /// pace until `now`.
    static func busy(_ holder: Slot, maximum: Int, now: ContinuousClock.Instant = .now) -> ConsoleBatchRefusal {
        let what: String
        var retry = 30
        if let job = holder.jobID {
            let percent = holder.bytesTotal > 0 ? Int(100 * holder.bytesDone / holder.bytesTotal) : 0
            what = "batch \(job) (\(holder.name)), started by \(holder.operatorName), is running (\(percent) % done)"
            if let started = holder.runStarted, holder.bytesDone > holder.bytesAtStart {
                let elapsed = (now - started).components
                let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
                let rate = Double(holder.bytesDone - holder.bytesAtStart) / max(seconds, 0.001)
                retry = Int((Double(holder.bytesTotal - holder.bytesDone) / rate).rounded(.up))
            }
        } else {
            what = "\(holder.operatorName) is uploading \(holder.name)"
        }
        retry = min(max(retry, 5), 3600)
        let places = maximum == 1 ? "one batch runs at a time" : "\(maximum) batches run at a time"
        return ConsoleBatchRefusal(
            NBGWError(
                .rateLimited,
                "\(what); \(places) ([console] batch_concurrency): upload again when it ends, in about \(retry) s"
            ),
            retryAfterSeconds: retry
        )
    }

    /// A new upload's path: `upload-<ms>-<n>-<name>.csv` in the directory.
    private func newUploadPath(name: String) async throws(NBGWError) -> String {
        let sequence = state.withLock { state -> Int in
            state.uploads += 1
            return state.uploads
        }
        let millis = Int64((configuration.batchClock.now().timeIntervalSince1970 * 1000).rounded())
        let directory = try await files.perform { [files] () throws(NBGWError) -> String in try files.directory() }
        return "\(directory)/\(ConsoleBatchFiles.uploadPrefix)\(millis)-\(sequence)-\(name).csv"
    }

    /// Runs `receipt` until it ends, or until ``stop()``: then it is cancelled (its file deleted) and
    /// the upload refused as the gateway stopping, however slowly its client sends.
    private func untilStopped(slot: Int, _ receipt: @escaping @Sendable () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await receipt() }
            group.addTask { [self] in
                try await withTaskCancellationHandler {
                    // Resumed only by a throw: the stop's refusal, or the cancellation once the receipt ended.
                    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                        let early = state.withLock { state -> (any Error)? in
                            if state.stopping { return Self.stoppingRefusal }
                            if Task.isCancelled { return CancellationError() }
                            state.receiving[slot] = continuation
                            return nil
                        }
                        if let early { continuation.resume(throwing: early) }
                    }
                } onCancel: {
                    state.withLock { $0.receiving.removeValue(forKey: slot) }?.resume(throwing: CancellationError())
                }
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// Writes `body` to `path` (new, 0600) a quarter MiB at a time, counting; refuses it past the
    /// largest upload or the quota, or when the daemon begins to stop, and then deletes what it wrote.
    private func receive<Body: AsyncSequence>(
        _ body: Body,
        into path: String,
        used: Int64,
        slot: Int
    ) async throws where Body.Element == ByteBuffer {
        let files = self.files
        var fd: Int32? = try await files.perform { () throws(NBGWError) -> Int32 in try files.create(path) }
        do {
            var received: Int64 = 0
            var pending = ByteBufferAllocator().buffer(capacity: Self.writeSize)
            for try await buffer in body {
                received += Int64(buffer.readableBytes)
                if let refusal = quota.refusal(bytes: received, used: used) { throw refusal }
                if state.withLock({ $0.stopping }) { throw Self.stoppingRefusal }
                pending.writeImmutableBuffer(buffer)
                if pending.readableBytes >= Self.writeSize, let open = fd {
                    let full = pending
                    pending = ByteBufferAllocator().buffer(capacity: Self.writeSize)
                    try await files.perform { () throws(NBGWError) in try files.write(full, to: open, path: path) }
                }
            }
            // A receipt cancelled by ``stop()`` may see the body end early: never keep a cut file.
            try Task.checkCancellation()
            guard let open = fd else { return }
            let rest = pending
            fd = nil
            try await files.perform { () throws(NBGWError) in
                do throws(NBGWError) {
                    if rest.readableBytes > 0 { try files.write(rest, to: open, path: path) }
                } catch {
                    files.close(open)
                    throw error
                }
                try files.finish(open, path: path)
            }
            state.withLock { $0.slots[slot]?.bytesTotal = received }
        } catch {
            // A descriptor handed to the last step was closed there; the file goes either way.
            let open = fd
            _ = try? await files.perform { files.discard(open, path: path) }
            throw error
        }
    }

    // MARK: Runs

    /// Starts `request` on a thread of its own and returns the job's id once the store opened it.
    /// Owns `slot` from here on (released when the run ends).
    private func start(
        slot: Int,
        request: BatchRequest,
        name: String,
        resumed: Bool,
        ended: @escaping @Sendable (End) -> Void
    ) async throws -> Int64 {
        do {
            try state.withLock { (state) throws(ConsoleBatchRefusal) in
                if state.stopping { throw Self.stoppingRefusal }
                state.slots[slot]?.running = true
            }
        } catch {
            if !resumed {
                _ = try? await files.perform { [files] in files.remove([request.inputPath, request.reportPath!]) }
            }
            release(slot)
            throw error
        }
        let opened = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<Int64, NBGWError>, Never>) in
            let thread = Thread { [self] in
                run(slot: slot, request: request, name: name, resumed: resumed, answer: continuation, ended: ended)
            }
            thread.name = "nbgw-console-batch"
            thread.start()
        }
        return try opened.get()
    }

    /// The run, blocking this (the batch's own) thread: the job opened (`answer` resumed), the rows
    /// bound chunk by chunk, then what its end leaves behind.
    private func run(
        slot: Int,
        request: BatchRequest,
        name: String,
        resumed: Bool,
        answer: CheckedContinuation<Result<Int64, NBGWError>, Never>,
        ended: @escaping @Sendable (End) -> Void
    ) {
        var jobID: Int64?
        let reportPath = request.reportPath ?? request.inputPath + ".report.csv"
        let quota = configuration.batchQuotaBytes
        let outcome: Result<BatchSummary, NBGWError>
        do throws(NBGWError) {
            outcome = .success(
                try binder.run(
                    request,
                    progress: { progress in
                        // The quota holds while the report grows: a report can be many times its
                        // upload (30× for rows of a few bytes that all fail), which no check at the
                        // upload can know.
                        let report = ConsoleBatchFiles.size(of: reportPath)
                        state.withLock { state in
                            state.slots[slot]?.bytesDone = progress.bytesDone
                            if let baseline = state.slots[slot]?.baseline, baseline + report > quota {
                                state.slots[slot]?.overQuota = true
                            }
                        }
                    },
                    shouldStop: { state.withLock { $0.stopping || $0.slots[slot]?.overQuota == true } },
                    opened: { job in
                        jobID = job.id
                        state.withLock { state in
                            state.slots[slot]?.jobID = job.id
                            state.slots[slot]?.bytesTotal = job.inputSize
                            state.slots[slot]?.bytesAtStart = job.nextOffset
                            state.slots[slot]?.bytesDone = job.nextOffset
                            state.slots[slot]?.runStarted = .now
                        }
                        answer.resume(returning: .success(job.id))
                    }
                )
            )
        } catch {
            outcome = .failure(error)
        }
        guard let jobID else {
            // Refused before its job opened (no `qr` column, an empty file, the store busy):
            // nothing to resume, so nothing of a new upload is kept.
            if !resumed { files.remove([request.inputPath, request.reportPath ?? ""]) }
            release(slot)
            switch outcome {
            case .failure(let error): answer.resume(returning: .failure(error))
            case .success: answer.resume(returning: .failure(NBGWError(.internalError, "the batch opened no job")))
            }
            return
        }
        var end = End(jobID: jobID, name: name, operatorName: request.operator ?? "", resumed: resumed)
        let metadata: Logger.Metadata = [
            "batch.job": "\(jobID)", "batch.name": "\(name)", "operator": "\(end.operatorName)",
        ]
        var result = outcome
        if case .success(let summary) = outcome, summary.stopped, state.withLock({ $0.slots[slot]?.overQuota == true })
        {
            let used = (state.withLock { $0.slots[slot]?.baseline } ?? 0) + ConsoleBatchFiles.size(of: reportPath)
            result = .failure(
                Self.overQuota(id: jobID, name: name, used: used, quota: quota, line: summary.stoppedAtLine)
            )
        }
        switch result {
        case .success(let summary) where !summary.stopped:
            end.summary = summary
            // The report is what an operator downloads; the upload is no longer needed.
            files.remove([request.inputPath])
            logger.info(
                "console batch finished",
                metadata: metadata.merging(
                    [
                        "batch.rows": "\(summary.rows)", "batch.bound": "\(summary.bound)",
                        "batch.failed": "\(summary.failed)",
                    ]
                ) { $1 }
            )
        case .success(let summary):
            end.summary = summary
            logger.notice(
                "console batch stopped at a chunk boundary; resume it from the batch page",
                metadata: metadata.merging(
                    ["batch.line": "\(summary.stoppedAtLine ?? 0)", "batch.rows": "\(summary.rows)"]
                ) { $1 }
            )
        case .failure(let error):
            end.error = error
            state.withLock { state in
                state.failures[jobID] = error
                state.failureOrder.append(jobID)
                while state.failureOrder.count > Self.failuresKept {
                    state.failures[state.failureOrder.removeFirst()] = nil
                }
            }
            logger.error(
                "console batch failed; resume it from the batch page once the cause is fixed",
                metadata: metadata.merging(["error": "\(error.message)", "code": "\(error.code.rawValue)"]) { $1 }
            )
        }
        ended(end)
        release(slot)
    }

    /// Stops the running batches at their next chunk boundary (each commits what it has decided,
    /// then ends, open in the store: interrupted) and returns once none runs; refuses new uploads
    /// and resumes from then on. The daemon's graceful stop.
    public func stop() async {
        let (running, receiving) = state.withLock { state in
            state.stopping = true
            defer { state.receiving = [:] }
            return (state.slots.values.filter(\.running).count, Array(state.receiving.values))
        }
        for upload in receiving { upload.resume(throwing: Self.stoppingRefusal) }
        if running > 0 {
            logger.notice("stopping the console batch at its next chunk boundary", metadata: ["batches": "\(running)"])
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state -> Bool in
                guard state.slots.values.contains(where: \.running) else { return true }
                state.idle.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    // MARK: Jobs

    /// The newest ``ConsoleConfiguration/listedBatches`` jobs, newest first.
    public func jobs() async throws(NBGWError) -> [ConsoleBatchJob] {
        let limit = configuration.listedBatches
        let (records, reports) = try await files.perform {
            [files, registry] () throws(NBGWError) -> ([BatchJobRecord], Set<String>) in
            let records = try registry.bindings.batchJobs(inDirectory: try files.directory(), limit: limit)
            return (records, Set(records.map(\.reportPath).filter(files.exists)))
        }
        return records.map { view($0, hasReport: reports.contains($0.reportPath)) }
    }

    /// The job `id` when it is one of the console's; nil otherwise.
    public func job(_ id: Int64) async throws(NBGWError) -> ConsoleBatchJob? {
        let found = try await files.perform {
            [files, registry] () throws(NBGWError) -> (BatchJobRecord, Bool)? in
            let directory = try files.directory()
            guard let record = try registry.bindings.batchJob(id: id),
                record.inputPath.hasPrefix(directory + "/")
            else { return nil }
            return (record, files.exists(record.reportPath))
        }
        return found.map { view($0.0, hasReport: $0.1) }
    }

    func view(_ record: BatchJobRecord, hasReport: Bool) -> ConsoleBatchJob {
        let (running, failure) = state.withLock { state in
            (state.slots.values.contains { $0.running && $0.jobID == record.id }, state.failures[record.id])
        }
        let status: ConsoleBatchJob.Status =
            running
            ? .running
            : record.finishedAt != nil ? .finished : record.abandonedAt != nil ? .abandoned : .interrupted
        return ConsoleBatchJob(
            record: record,
            status: status,
            name: Self.displayName(record.inputPath),
            error: running ? nil : failure,
            hasReport: hasReport
        )
    }

    /// Streams job `id`'s report (from the file, a read at a time); nil when there is none.
    public func report(_ id: Int64) async throws(NBGWError) -> (name: String, size: Int64, body: ResponseBody)? {
        guard let job = try await job(id), job.status != .running else { return nil }
        let files = self.files
        let path = job.record.reportPath
        guard let opened = try await files.perform({ () throws(NBGWError) in files.openReport(path) }) else {
            return nil
        }
        let (fd, size) = opened
        let body = ResponseBody(contentLength: Int(size)) { writer in
            var sent: Int64 = 0
            do {
                while sent < size,
                    let chunk = try await files.perform({ () throws(NBGWError) in try files.read(fd, path: path) })
                {
                    // A report cut back meanwhile (a resume) ends short; never past what was announced.
                    let part = chunk.getSlice(
                        at: chunk.readerIndex,
                        length: Int(min(Int64(chunk.readableBytes), size - sent))
                    )!
                    sent += Int64(part.readableBytes)
                    try await writer.write(part)
                }
            } catch {
                _ = try? await files.perform { files.close(fd) }
                throw error
            }
            _ = try? await files.perform { files.close(fd) }
            try await writer.finish(nil)
        }
        return (job.name, size, body)
    }

    // MARK: Sweeps

    /// Deletes what nothing needs any more and gives up jobs past the retention
    /// (``ConsoleBatchRetention``); returns the bytes left in the directory, nil when the sweep
    /// failed (the log says why).
    @discardableResult
    public func sweep() async -> Int64? {
        do {
            return try await sweepAndMeasure()
        } catch {
            return nil
        }
    }

    /// ``sweep()``, its failure thrown (an upload cannot be measured against the quota then).
    func sweepAndMeasure() async throws(NBGWError) -> Int64 {
        let now = configuration.batchClock.now()
        do {
            return try await files.perform { [self] () throws(NBGWError) -> Int64 in
                let directory = try files.directory()
                let entries = try files.entries()
                let ours = entries.filter {
                    ($0.path as NSString).lastPathComponent.hasPrefix(ConsoleBatchFiles.uploadPrefix)
                }
                let jobs = try registry.bindings.batchJobs(referencing: ours.map(\.path), orOpenInDirectory: directory)
                let active = state.withLock { Set($0.slots.values.flatMap(\.paths)) }
                let plan = retention.plan(files: ours, jobs: jobs, active: active, now: now)
                for id in plan.abandon {
                    try registry.bindings.abandonBatchJob(id: id)
                    logger.notice(
                        "console batch given up: interrupted past the retention, or its upload is gone",
                        metadata: ["batch.job": "\(id)"]
                    )
                }
                files.remove(plan.remove)
                if !plan.remove.isEmpty {
                    logger.info("console batch files removed", metadata: ["files": "\(plan.remove.count)"])
                }
                let removed = Set(plan.remove)
                return entries.filter { !removed.contains($0.path) }.reduce(0) { $0 + $1.size }
            }
        } catch {
            logger.error(
                "cannot sweep the console's batch files",
                metadata: ["directory": "\(configuration.batchDirectory)", "error": "\(error.message)"]
            )
            throw error
        }
    }

    /// Sweeps now, then every `interval` on `clock`, until the task is cancelled.
    public func sweepPeriodically<C: Clock>(
        every interval: Duration = ConsoleBatches.sweepInterval,
        clock: C
    ) async where C.Duration == Duration {
        while !Task.isCancelled {
            await sweep()
            do { try await clock.sleep(for: interval) } catch { return }
        }
    }

    // MARK: Names

    /// The name an upload is kept under: letters, digits, `.`, `-` and `_` (others become `_`), at
    /// most 64 characters; "upload.csv" when nothing is left.
    static func fileName(_ name: String) -> String {
        let kept = String(
            name.unicodeScalars.prefix(64).map { scalar in
                scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || ".-_".unicodeScalars.contains(scalar))
                    ? Character(scalar) : "_"
            }
        )
        return kept.allSatisfy({ $0 == "_" || $0 == "." }) ? "upload.csv" : kept
    }

    /// The name shown for a job's upload path (`upload-<ms>-<n>-<name>.csv`).
    static func displayName(_ path: String) -> String {
        var name = Substring((path as NSString).lastPathComponent)
        guard name.hasPrefix(ConsoleBatchFiles.uploadPrefix) else { return String(name) }
        name = name.dropFirst(ConsoleBatchFiles.uploadPrefix.count)
        for _ in 0..<2 {
            guard let dash = name.firstIndex(of: "-") else { return String(name) }
            name = name[name.index(after: dash)...]
        }
        if name.hasSuffix(".csv") { name = name.dropLast(4) }
        return name.isEmpty ? "upload.csv" : String(name)
    }
}
