import Cloud
import Dispatch
import Foundation
import NBGWCore
import Provisioning
import Registry
import Synchronization

/// CSV batches started from the console: each upload is written to a file of its own under the
/// batch directory and run by ``BatchBinder`` (the code of `nbgw bind --csv`) on a dispatch
/// thread; the page polls its progress. A rerun of the same file is a new upload: rows already
/// bound come back `unchanged`.
public final class ConsoleBatches: Sendable {
    /// One batch as the page follows it.
    public struct Job: Sendable {
        public var id: Int
        public var name: String
        public var operatorName: String
        public var inputPath: String
        public var reportPath: String
        public var bytesDone: Int64 = 0
        public var bytesTotal: Int64
        public var rowsDone: Int = 0
        public var summary: BatchSummary?
        public var error: NBGWError?
        public var done: Bool { summary != nil || error != nil }
    }

    let directory: String
    let binder: BatchBinder
    private let jobs = Mutex<(next: Int, all: [Int: Job])>((1, [:]))

    public init(directory: String, registry: Registry, cloud: any CloudService) {
        self.directory = directory
        self.binder = BatchBinder(registry: registry, cloud: cloud)
    }

    public func job(_ id: Int) -> Job? { jobs.withLock { $0.all[id] } }

    public func all() -> [Job] { jobs.withLock { $0.all.values.sorted { $0.id > $1.id } } }

    /// Stores `bytes` and starts binding them; `finished` runs once the job ends.
    public func start(
        name: String,
        bytes: [UInt8],
        account: String?,
        home: String?,
        operator: String,
        finished: @escaping @Sendable (Job) -> Void
    ) throws(NBGWError) -> Job {
        do {
            try FileManager.default.createDirectory(
                atPath: directory,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw NBGWError(.invalidArgument, "cannot create \(directory) for uploads: \(error.localizedDescription)")
        }
        let id = jobs.withLock { state in
            let id = state.next
            state.next += 1
            return id
        }
        let stamp = Int(Date().timeIntervalSince1970 * 1000)
        let input = (directory as NSString).appendingPathComponent("upload-\(stamp)-\(id).csv")
        let report = input + ".report.csv"
        guard
            FileManager.default.createFile(atPath: input, contents: Data(bytes), attributes: [.posixPermissions: 0o600])
        else {
            throw NBGWError(.invalidArgument, "cannot write the upload to \(input); check the directory's owner")
        }
        let job = Job(
            id: id,
            name: String(name.prefix(128)),
            operatorName: `operator`,
            inputPath: input,
            reportPath: report,
            bytesTotal: Int64(bytes.count)
        )
        jobs.withLock { $0.all[id] = job }
        let request = BatchRequest(
            inputPath: input,
            reportPath: report,
            defaultAccount: account,
            defaultHome: home,
            operator: `operator`
        )
        DispatchQueue.global().async { [binder] in
            let outcome: Result<BatchSummary, NBGWError>
            do throws(NBGWError) {
                outcome = .success(
                    try binder.run(request) { progress in
                        self.jobs.withLock { state in
                            state.all[id]?.bytesDone = progress.bytesDone
                            state.all[id]?.rowsDone = progress.rowsDone
                        }
                    }
                )
            } catch {
                outcome = .failure(error)
            }
            let ended = self.jobs.withLock { state -> Job? in
                guard var job = state.all[id] else { return nil }
                switch outcome {
                case .success(let summary):
                    job.summary = summary
                    job.bytesDone = job.bytesTotal
                    job.rowsDone = summary.rows
                case .failure(let error): job.error = error
                }
                state.all[id] = job
                return job
            }
            if let ended { finished(ended) }
        }
        return job
    }
}
