import Foundation
import PosixSupport
import Registry
import Synchronization

/// Reads and prepares a batch's chunks on a thread of its own, up to ``depth`` chunks ahead of the
/// store: the CSV reader, the QR payload parser and the label checks run while the store decides
/// and commits the chunk before, so on a machine with two cores parsing is off the commit's
/// critical path.
///
/// Why a thread and a bounded hand-off: the batch is synchronous code holding the store's writer
/// connection; a dedicated thread keeps the reader's file descriptor on one thread, and the bound
/// (one chunk of at most `chunkSize` records waiting, one being read) keeps memory flat whatever the
/// file's size. Measured with `tools/bench-csv.sh` (1 M rows, the script's mix, this 2-core
/// machine, both builds in the same hour): 79 k rows/s reading inline, 90 k rows/s with this reader
/// (0.54× → 0.64× of SQLite's set-wise floor); peak RSS 52.6 → 63.5 MiB (the reader thread's own
/// malloc arena). Two chunks ahead gained nothing more and took 65.6 MiB.
///
/// A pipelined batch adds a second stage on a thread of its own (`finish`: deciding the chunk and
/// writing its report), fed by a plain reader; see ``init(path:offset:line:chunkSize:prepare:finish:)``.
///
/// Stopping between chunks (``stop()``) discards what was read ahead: resuming starts from the
/// last committed chunk's offset, so nothing read ahead is ever lost or counted.
final class BatchChunkReader: Sendable {
    /// One chunk: the records as read, each prepared (a row for the store or a refusal), and the
    /// rows for the store in order.
    struct Chunk: Sendable {
        var records: [CSVRecord] = []
        var prepared: [BatchBinder.Prepared] = []
        var rows: [BatchRow] = []
        /// The chunk's record count (kept when a pipelined batch's decider drops the records).
        var count = 0
        /// True when the file ends with this chunk.
        var finished = false
        /// Bytes read when the chunk was complete, and the file's size.
        var bytesDone: Int64 = 0
        var bytesTotal: Int64 = 0
        /// What the reader's `finish` stage made of the chunk (a pipelined batch: the rows decided,
        /// the report written, the job's progress after it).
        var decided: BatchDecidedChunk?
        var job: BatchJob?
    }

    private enum Item: Sendable {
        case chunk(Chunk)
        case failure(any Error)
    }

    private struct State {
        var items: [Item] = []
        var stopped = false
    }

    /// One: a pipelined batch decides chunk k+1 on a snapshot that must already hold chunk k−1
    /// (see ``init(path:offset:line:chunkSize:prepare:finish:)``); a deeper queue would break it.
    static let depth = 1

    /// Nice levels the reader's and the decider's threads lower themselves by
    /// (``Posix/lowerCurrentThreadPriority(by:)``).
    ///
    /// Why: the thread that writes and commits is the batch's longest (perf: about 3.75 s of CPU
    /// in a million-row batch, the decider 2.5, the reader 0.75), and on two cores the three share
    /// the CPU evenly whenever all are ready, taking a third of a core from the writer. Lowered by
    /// 5, they run when the writer waits or on the other core. In-process time, medians of 7
    /// alternating runs, three times: 3.59 against 3.70 s, 3.81 against 3.86, 3.63 against 3.72.
    static let niceSteps: Int32 = 5

    private let state = Mutex(State())
    private let itemsReady = DispatchSemaphore(value: 0)
    /// Created at 0 and signalled ``depth`` times: libdispatch traps when a semaphore is freed with
    /// a count below the value it was created with.
    private let slotsFree = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    /// The plain reader a ``finish`` stage takes its chunks from (nil: this reader reads itself).
    private let source: BatchChunkReader?

    /// Starts reading `path` at `offset` (line `line`), `chunkSize` records per chunk, each
    /// record prepared by `prepare`, each chunk then passed to `finish` before it is handed over.
    ///
    /// With `finish`, two threads: one reads and prepares (a plain reader, one chunk ahead), the
    /// other finishes. Why two: in a pipelined batch `finish` decides the chunk and writes its
    /// report (about 3.3 s of a million rows of `tools/bench-csv.sh`'s mix), reading and parsing
    /// cost 0.8 s more, and the store writes for 3.7 s; on one thread the first two were the
    /// longest stage (4.65 s for the batch).
    ///
    /// What a chunk's `finish` may rely on: it runs for chunk k+1 only after ``next()`` handed
    /// over chunk k, and the consumer calls ``next()`` for chunk k only once it is done with chunk
    /// k−1 (one chunk waiting at most, ``depth``).
    init(
        path: String,
        offset: Int64,
        line: Int,
        chunkSize: Int,
        prepare: @escaping @Sendable (CSVRecord) -> BatchBinder.Prepared,
        finish: (@Sendable (inout Chunk) throws -> Void)? = nil
    ) {
        for _ in 0..<BatchChunkReader.depth { slotsFree.signal() }
        guard let finish else {
            source = nil
            startReading(path: path, offset: offset, line: line, chunkSize: chunkSize, prepare: prepare)
            return
        }
        let source = BatchChunkReader(path: path, offset: offset, line: line, chunkSize: chunkSize, prepare: prepare)
        self.source = source
        let thread = Thread { [self] in
            defer { done.signal() }
            Posix.lowerCurrentThreadPriority(by: BatchChunkReader.niceSteps)
            var finished = false
            while !finished {
                slotsFree.wait()
                if state.withLock({ $0.stopped }) { return }
                do {
                    var chunk = try source.next()
                    try finish(&chunk)
                    finished = chunk.finished
                    guard push(.chunk(chunk)) else { return }
                } catch {
                    _ = push(.failure(error))
                    return
                }
            }
        }
        thread.name = "nbgw-batch-decider"
        thread.start()
    }

    private func startReading(
        path: String,
        offset: Int64,
        line: Int,
        chunkSize: Int,
        prepare: @escaping @Sendable (CSVRecord) -> BatchBinder.Prepared
    ) {
        let thread = Thread { [self] in
            defer { done.signal() }
            Posix.lowerCurrentThreadPriority(by: BatchChunkReader.niceSteps)
            let reader: CSVReader
            do {
                reader = try CSVReader(path: path, offset: offset, line: line)
            } catch {
                _ = push(.failure(error))
                return
            }
            var finished = false
            while !finished {
                slotsFree.wait()
                if state.withLock({ $0.stopped }) { return }
                var chunk = Chunk()
                chunk.records.reserveCapacity(chunkSize)
                chunk.prepared.reserveCapacity(chunkSize)
                chunk.rows.reserveCapacity(chunkSize)
                do {
                    while chunk.records.count < chunkSize {
                        guard let record = try reader.next() else {
                            chunk.finished = true
                            break
                        }
                        let prepared = prepare(record)
                        if case .row(let row) = prepared { chunk.rows.append(row) }
                        chunk.records.append(record)
                        chunk.prepared.append(prepared)
                    }
                } catch {
                    _ = push(.failure(error))
                    return
                }
                chunk.count = chunk.records.count
                chunk.bytesDone = reader.offset
                chunk.bytesTotal = reader.fileSize
                finished = chunk.finished
                guard push(.chunk(chunk)) else { return }
            }
        }
        thread.name = "nbgw-batch-reader"
        thread.start()
    }

    /// Hands `item` over; false when the reader was stopped.
    private func push(_ item: Item) -> Bool {
        let accepted = state.withLock { state in
            guard !state.stopped else { return false }
            state.items.append(item)
            return true
        }
        if accepted { itemsReady.signal() }
        return accepted
    }

    /// The next chunk, waiting for it; rethrows what the reader failed with.
    func next() throws -> Chunk {
        itemsReady.wait()
        // Empty only when ``stop()`` woke a waiter (a finish stage waiting for its source).
        guard let item = state.withLock({ $0.items.isEmpty ? nil : $0.items.removeFirst() }) else {
            throw BatchChunkReaderStopped()
        }
        slotsFree.signal()
        switch item {
        case .chunk(let chunk): return chunk
        case .failure(let error): throw error
        }
    }

    /// Stops the reader and waits for its thread to end; chunks read ahead are dropped.
    func stop() {
        let first = state.withLock { state in
            defer { state.stopped = true }
            state.items.removeAll()
            return !state.stopped
        }
        guard first else { return }
        slotsFree.signal()
        itemsReady.signal()
        source?.stop()
        done.wait()
    }
}

/// What ``BatchChunkReader/next()`` throws once the reader was stopped.
struct BatchChunkReaderStopped: Error {}
