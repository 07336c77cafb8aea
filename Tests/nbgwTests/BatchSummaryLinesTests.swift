import Provisioning
import Testing

@testable import nbgw

@Suite("nbgw bind --csv: the summary an operator reads")
struct BatchSummaryLinesTests {
    @Test("The summary says when chunks were decided again under the write lock, and is silent when none were")
    func redecidedChunks() {
        var summary = BatchSummary(input: "in.csv", report: "in.csv.report.csv")
        summary.rows = 5000
        summary.bound = 5000
        summary.rowsThisRun = 5000
        #expect(!Bind.summaryLines(summary).joined().contains("decided again"))
        summary.chunksRedecided = 1
        #expect(
            Bind.summaryLines(summary).contains {
                $0.hasPrefix("1 chunk was decided again under the store's write lock")
            }
        )
        summary.chunksRedecided = 2
        let lines = Bind.summaryLines(summary)
        #expect(lines.first == "rows: 5000  bound: 5000  unchanged: 0  failed: 0")
        #expect(lines.contains { $0.hasPrefix("2 chunks were decided again") && $0.contains("another writer") })
        #expect(lines.last == "report: in.csv.report.csv")
    }
}
