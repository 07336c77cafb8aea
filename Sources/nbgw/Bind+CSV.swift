import ArgumentParser
import Foundation
import NBGWCore
import Provisioning

#if canImport(Glibc)
import Glibc
#endif

extension Bind {
    /// `nbgw bind --csv FILE`: the batch, a progress bar on a terminal, a summary at the end.
    func runBatch(_ path: String) async throws {
        let stop = StopFlag()
        stop.install()
        let tty = isatty(STDERR_FILENO) == 1
        var lastDraw = ContinuousClock.now - .seconds(1)
        try await Output.run(json: store.json) {
            let registry = try store.openRegistry()
            let request = BatchRequest(
                inputPath: path,
                reportPath: report,
                defaultAccount: account,
                defaultHome: home,
                dryRun: dryRun,
                restart: restart,
                operator: who.resolved,
                chunkSize: chunkSize
            )
            let summary = try await cloudOptions.withCloud { cloud in
                try BatchBinder(registry: registry, cloud: cloud).run(
                    request,
                    progress: { progress in
                        // Why throttle: a redraw per chunk would be ~200/s at full speed; 10/s reads fine.
                        guard tty, ContinuousClock.now - lastDraw > .milliseconds(100) else { return }
                        lastDraw = ContinuousClock.now
                        Bind.drawProgress(progress)
                    },
                    shouldStop: { stop.isSet }
                )
            }
            if tty { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            if !summary.ignoredColumns.isEmpty {
                FileHandle.standardError.write(
                    Data(
                        "warning: ignored unknown columns: \(summary.ignoredColumns.map { $0.escapedForDisplay(limit: 32) }.joined(separator: ", "))\n"
                            .utf8
                    )
                )
            }
            if store.json {
                Output.json(summary)
            } else {
                Bind.printSummary(summary)
            }
            if summary.stopped {
                FileHandle.standardError.write(
                    Data(
                        ("stopped at line \(summary.stoppedAtLine ?? 0); everything before it is committed. "
                            + "Run the same command again to resume.\n").utf8
                    )
                )
                throw ExitCode(130)
            }
            if summary.failed > 0 { throw ExitCode(1) }
        }
    }

    static func drawProgress(_ progress: BatchProgress) {
        let fraction = progress.bytesTotal > 0 ? Double(progress.bytesDone) / Double(progress.bytesTotal) : 0
        let width = 24
        let filled = min(width, Int(fraction * Double(width)))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let eta = progress.etaSeconds.map { String(format: "%.0fs", $0) } ?? "?"
        let line = String(
            format: "\r[%@] %3.0f%%  %d rows  %.0f rows/s  ETA %@\u{1B}[K",
            bar,
            fraction * 100,
            progress.rowsDone,
            progress.rowsPerSecond,
            eta
        )
        FileHandle.standardError.write(Data(line.utf8))
    }

    static func printSummary(_ summary: BatchSummary) {
        for line in summaryLines(summary) { Output.line(line) }
    }

    /// The summary an operator reads (`--json` prints the same facts as JSON).
    static func summaryLines(_ summary: BatchSummary) -> [String] {
        let mode = summary.dryRun ? " (dry run: nothing written to the store)" : ""
        var lines = [
            "rows: \(summary.rows)  bound: \(summary.bound)  unchanged: \(summary.unchanged)  failed: \(summary.failed)\(mode)"
        ]
        for (code, count) in summary.failuresByCode.sorted(by: { $0.key < $1.key }) {
            lines.append("  \(code): \(count)")
        }
        if let line = summary.resumedFromLine { lines.append("resumed at line \(line)") }
        if summary.chunksRedecided > 0 {
            let chunks = summary.chunksRedecided == 1 ? "1 chunk was" : "\(summary.chunksRedecided) chunks were"
            lines.append(
                "\(chunks) decided again under the store's write lock: another writer (an HTTP bind, the "
                    + "daemon) changed a device while the batch ran; the report holds the store's final answer"
            )
        }
        lines.append(
            String(
                format: "%d rows this run in %.2f s (%.0f rows/s)",
                summary.rowsThisRun,
                summary.seconds,
                summary.rowsPerSecond
            )
        )
        lines.append("report: \(summary.report)")
        return lines
    }
}
