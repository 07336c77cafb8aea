import Console
import NBGWCore
import TOMLKit

extension DaemonConfiguration {
    /// `[console]`: the web console's CSV batches (docs/console.md, "Batches"; the console runs on the
    /// `[ingest]` listener).
    public struct ConsoleSettings: Sendable, Equatable {
        /// `batch_max_upload`: the largest CSV upload, in bytes.
        public var batchMaxUpload: Int
        /// `batch_concurrency`: console batches at once, uploads included.
        public var batchConcurrency: Int
        /// `batch_retention`: how long a report (and an interrupted batch's upload) is kept after its
        /// job's last change.
        public var batchRetention: Duration
        /// `batch_quota`: the most the batch directory may hold, in bytes.
        public var batchQuota: Int64

        /// The console's own defaults (``ConsoleConfiguration`` says why each).
        public init(
            batchMaxUpload: Int = 64 * 1_048_576,
            batchConcurrency: Int = 1,
            batchRetention: Duration = .seconds(7 * 86_400),
            batchQuota: Int64 = 1 << 30
        ) {
            self.batchMaxUpload = batchMaxUpload
            self.batchConcurrency = batchConcurrency
            self.batchRetention = batchRetention
            self.batchQuota = batchQuota
        }

        /// Sets these on the console's configuration.
        public func apply(to console: inout ConsoleConfiguration) {
            console.maxCSVBytes = batchMaxUpload
            console.maxRunningBatches = batchConcurrency
            console.batchRetention = batchRetention
            console.batchQuotaBytes = batchQuota
        }
    }

    static let consoleSection = "console"

    static func readConsole(_ table: TOMLTable, _ reader: inout ConfigurationReader) -> ConsoleSettings {
        reader.checkKeys(
            table,
            at: "console",
            allowed: ["batch_max_upload", "batch_concurrency", "batch_retention", "batch_quota"]
        )
        var console = ConsoleSettings()
        // 1 KiB to 1 GiB: a header and a few rows at least; a file past a gigabyte is a day's
        // production many times over (split it).
        if let bytes = reader.integer(table, "batch_max_upload", at: "console", in: 1024...(1 << 30), unit: "bytes") {
            console.batchMaxUpload = bytes
        }
        // At most 4: each batch keeps a core and the store's write lock busy.
        if let count = reader.integer(table, "batch_concurrency", at: "console", in: 1...4, unit: "batches") {
            console.batchConcurrency = count
        }
        // An hour at least: a sweep leaves alone any upload written to within the last hour.
        if let retention = reader.seconds(
            table,
            "batch_retention",
            at: "console",
            in: 3600...(366 * 86_400),
            example: "604800"
        ) {
            console.batchRetention = retention
        }
        if let bytes = reader.integer(table, "batch_quota", at: "console", in: 1_048_576...(1 << 50), unit: "bytes") {
            console.batchQuota = Int64(bytes)
        }
        let smallest = Int64(console.batchMaxUpload) * 4
        if console.batchQuota < smallest {
            reader.report(
                "console.batch_quota",
                "\(console.batchQuota) bytes cannot hold the largest upload with its report (about 4 × "
                    + "batch_max_upload = \(smallest) bytes): raise batch_quota or lower batch_max_upload"
            )
        }
        return console
    }

    /// The `[console]` lines of the effective configuration.
    func renderedConsole(seconds: (Duration) -> String) -> [String] {
        [
            "[console]",
            "batch_max_upload = \(console.batchMaxUpload)",
            "batch_concurrency = \(console.batchConcurrency)",
            "batch_retention = \(seconds(console.batchRetention))",
            "batch_quota = \(console.batchQuota)",
        ]
    }
}
