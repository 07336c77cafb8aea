import CSQLite
import Dispatch
import GRDB
import NBGWCore
import Pairing

extension Registry.Bindings {
    /// ``bind(_:timeout:queueForCloud:)`` for concurrent callers (the ingest API, the daemon): binds that
    /// arrive together are committed together, each group one IMMEDIATE transaction with one
    /// savepoint per bind. A call returns once its group has committed, so a returned outcome is
    /// on disk as surely as a lone bind's.
    ///
    /// The result is exactly the lone bind's: each bind is evaluated under the seed's rules against
    /// everything committed and everything bound earlier in its group (two binds of one device in
    /// a group: the first wins, the second is `DEVICE_ALREADY_BOUND`); a refused bind rolls back to
    /// its savepoint and its audit rows are written in the same group. When the group's commit
    /// fails, every bind of the group fails with that error and nothing of it is stored.
    ///
    /// How (leader and followers, as in database group commit): a call that finds no group being
    /// committed leads: it takes everything queued (itself first) on its own thread, through the
    /// writer, and answers the others of its group. Calls arriving meanwhile queue and suspend;
    /// when the leader is done, the oldest of them leads the next group. Why: a commit costs far
    /// more than a bind's statements (the WAL frames of every touched page), so sharing it is the
    /// saving; groups form without any added delay (a lone bind is a group of one); and a leader
    /// runs its group where it already is, where handing each group to a writer thread and back
    /// cost two thread switches per bind (measured: p99 at half the peak rate 15-27 ms that way).
    ///
    /// - Parameter timeout: the activation budget, as in ``bind(_:timeout:)``; time spent in the queue
    ///   and waiting for another process's write lock both count. When it runs out first, the bind
    ///   is not attempted and the error is `TIMEOUT`.
    public func bindInGroup(
        _ command: BindCommand,
        timeout: Duration = BindingRules.defaultActivationTimeout,
        queueForCloud: Bool = false
    ) async throws(NBGWError) -> Registry.SyncedChange<BindOutcome> {
        let id = registry.bindQueue.nextID()
        let turn = await withCheckedContinuation { continuation in
            let request = BindQueue.Request(
                id: id,
                command: command,
                timeout: timeout,
                deadline: ContinuousClock.now.advanced(by: timeout),
                queueForCloud: queueForCloud,
                reply: continuation
            )
            // An idle queue: lead at once, without suspending.
            if registry.bindQueue.append(request) { continuation.resume(returning: .lead) }
        }
        switch turn {
        case .done(let result):
            return try result.get()
        case .lead:
            return try await registry.leadGroups(until: id).get()
        }
    }
}

extension Registry {
    /// The most binds one group transaction carries. Why a cap at all: a group holds the write lock
    /// for its whole length, and other processes (a CLI command, a CSV batch) wait behind it; 64
    /// binds take a few milliseconds.
    static let bindGroupLimit = 64

    /// Commits groups from the queue until the one holding request `id` has been answered, then
    /// hands the lead to the oldest waiting request (or leaves the queue idle).
    ///
    /// A group first runs on the leader's own thread and does not wait for the write lock: in one
    /// process every write goes through the writer, so the lock is free unless another process (a
    /// CLI command, a CSV batch) holds it. When it does, the group goes back to the queue and is
    /// retried on a dispatch thread, which waits for the lock (up to the group's shortest budget)
    /// while this task is suspended. Why not wait on the leader's thread: it is a
    /// cooperative thread, and on a two-core machine the pool has two of them; a leader sleeping in
    /// SQLite's busy handler for seconds stalls every other task of the process.
    func leadGroups(until id: UInt64) async -> Result<SyncedChange<BindOutcome>, NBGWError> {
        var contended = false
        while true {
            let round = contended ? await commitNextGroupWaiting() : commitNextGroup(mayWait: false)
            contended = round.contended
            var own: Result<SyncedChange<BindOutcome>, NBGWError>?
            for (request, result) in zip(round.group, round.results) {
                guard let result else { continue }  // put back: its budget outlasts a lock wait
                if request.id == id {
                    own = result
                } else {
                    request.reply.resume(returning: .done(result))
                }
            }
            if let own {
                bindQueue.nextLeader()?.reply.resume(returning: .lead)
                return own
            }
        }
    }

    /// One group taken from the queue and what became of it.
    struct GroupRound: Sendable {
        var group: [BindQueue.Request]
        /// Per request: its result, or nil when it went back to the queue.
        var results: [Result<SyncedChange<BindOutcome>, NBGWError>?]
        /// Another process held the write lock: the live requests went back to the queue.
        var contended = false
    }

    /// Takes the next group once the writer is ours (what arrived while it was busy joins) and
    /// commits it on the calling thread.
    func commitNextGroup(mayWait: Bool) -> GroupRound {
        pool.writeWithoutTransaction { db in
            commitGroup(db, bindQueue.take(limit: Registry.bindGroupLimit), mayWait: mayWait)
        }
    }

    /// ``commitNextGroup(mayWait:)`` on a dispatch thread, the caller suspended meanwhile. Why not
    /// GRDB's async write: it reacts to the calling task's cancellation (a client that hung up
    /// cancels its handler), and a group, once taken from the queue, must be committed and answered
    /// whatever happens to the task that leads it; a bind is not cancellable.
    func commitNextGroupWaiting() async -> GroupRound {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: self.commitNextGroup(mayWait: true))
            }
        }
    }

    /// One group: every request's result, in order; nil for a request put back in the queue (its
    /// budget outlasted the lock wait this group gave up on, or, when `mayWait` is false, another
    /// process held the lock and the group did not wait at all).
    func commitGroup(_ db: Database, _ group: [BindQueue.Request], mayWait: Bool) -> GroupRound {
        var contended = false
        let results = commitGroupResults(db, group, mayWait: mayWait, contended: &contended)
        return GroupRound(group: group, results: results, contended: contended)
    }

    private func commitGroupResults(
        _ db: Database,
        _ group: [BindQueue.Request],
        mayWait: Bool,
        contended: inout Bool
    ) -> [Result<SyncedChange<BindOutcome>, NBGWError>?] {
        var results = [Result<SyncedChange<BindOutcome>, NBGWError>?](repeating: nil, count: group.count)
        let start = ContinuousClock.now
        var live: [Int] = []
        for (index, request) in group.enumerated() {
            if request.deadline > start {
                live.append(index)
            } else {
                results[index] = .failure(activationTimeout(request.timeout))
            }
        }
        guard let firstDeadline = live.map({ group[$0].deadline }).min() else { return results }
        // The lock wait counts against the shortest remaining budget in the group; a bind whose
        // budget is longer goes back to the head of the queue if this wait times out.
        let wait = start.duration(to: firstDeadline)
        let connection = db.sqliteConnection
        // 0 turns SQLite's busy handler off: BEGIN IMMEDIATE fails at once when the lock is taken.
        sqlite3_busy_timeout(connection, mayWait ? Int32(clamping: max(1, wait.milliseconds)) : 0)
        defer { sqlite3_busy_timeout(connection, Int32(clamping: busyTimeout.milliseconds)) }
        func failAll(_ error: NBGWError) -> [Result<SyncedChange<BindOutcome>, NBGWError>?] {
            for index in live { results[index] = .failure(error) }
            return results
        }
        do {
            try db.beginTransaction(.immediate)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
        {
            contended = true
            let now = ContinuousClock.now
            var retry: [BindQueue.Request] = []
            for index in live {
                if group[index].deadline > now {
                    retry.append(group[index])
                } else {
                    results[index] = .failure(activationTimeout(group[index].timeout))
                }
            }
            bindQueue.putBack(retry)
            return results
        } catch {
            return failAll(Registry.storeError(error, path: path))
        }
        // Read once for the whole group: nothing else writes during this transaction, and binds
        // never change accounts or homes (OwnerFacts).
        var owners = OwnerFacts()
        for index in live {
            let request = group[index]
            do {
                try PreparedStatement.cached(db, "SAVEPOINT bind").run()
                // `now` is read with the write lock held, per bind (as in a lone bind): time spent
                // waiting must not let an expired token through.
                let now = nowMillis()
                let outcome = try Registry.bindRules(db, request.command, now: now, owners: &owners)
                let entry = request.queueForCloud ? try Registry.queueBind(db, outcome, now: now) : nil
                try PreparedStatement.cached(db, "RELEASE bind").run()
                results[index] = .success(SyncedChange(change: outcome, outboxEntry: entry))
            } catch {
                let refusal = Registry.storeError(error, path: path)
                guard db.isInsideTransaction else {
                    // SQLite rolled the whole transaction back (disk full, I/O error): the binds
                    // before this one are gone too.
                    return failAll(refusal)
                }
                do {
                    try PreparedStatement.cached(db, "ROLLBACK TO bind").run()
                    try PreparedStatement.cached(db, "RELEASE bind").run()
                    if error is NBGWError, refusal.code != .timeout, refusal.code != .storeUnavailable {
                        try Registry.appendRejection(db, request.command, refusal, now: nowMillis())
                    }
                } catch {
                    try? db.rollback()
                    return failAll(Registry.storeError(error, path: path))
                }
                results[index] = .failure(refusal)
            }
        }
        do {
            try db.commit()
        } catch {
            try? db.rollback()
            return failAll(Registry.storeError(error, path: path))
        }
        return results
    }
}
