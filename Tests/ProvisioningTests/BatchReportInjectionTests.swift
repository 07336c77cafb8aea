import Foundation
import Provisioning
import Testing

/// The batch report is opened by people in spreadsheets (the console serves it for download): a
/// cell that a spreadsheet would run as a formula is written as text (security review F13).
@Suite("CSV batch report: no cell starts a formula")
struct BatchReportInjectionTests {
    /// What the input file says in `ref` and `note`, and what the report must show.
    static let cells: [(input: String, reported: String)] = [
        (#""=HYPERLINK(""http://evil"",""x"")""#, #"'=HYPERLINK("http://evil","x")"#),
        ("+cmd|calc", "'+cmd|calc"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1:A9)", "'@SUM(A1:A9)"),
        ("\"\tTAB\"", "'\tTAB"),
        ("\"\rCR\"", "'\rCR"),
        ("plain", "plain"),
        ("a=b", "a=b"),
        ("", ""),
    ]

    @Test("ref and note cells starting with = + - @ tab or CR get a leading ' ; a stop and resume keeps every row once")
    func formulaCellsAreText() async throws {
        let f = try await BatchBinderTests.Fixture(devices: Self.cells.count)
        var csv = "qr,ref,note\n"
        for (index, cell) in Self.cells.enumerated() {
            csv += "\(f.labels[index]),\(cell.input),\(cell.input)\n"
        }
        // A row that fails quotes nothing of ours first, but its ref and note are the input's too.
        csv += "hello,=1+1,+1\n"
        let input = try f.write("in.csv", Array(csv.utf8))
        let request = BatchRequest(inputPath: input, defaultAccount: "alice", defaultHome: "lab", chunkSize: 3)
        var polls = 0
        let stopped = try f.binder().run(
            request,
            shouldStop: {
                polls += 1
                return polls > 1
            }
        )
        #expect(stopped.stopped, "the first run must stop after a chunk, so the resume is tested")
        let resumed = try f.binder().run(request)
        #expect(resumed.resumedFromLine == stopped.stoppedAtLine)
        #expect(resumed.bound == Self.cells.count)

        let rows = try f.report(input + ".report.csv")
        // A row's line is the physical line it starts on: the CR cell's record (line 7) holds two
        // line breaks inside its quotes, so the records after it start on lines 10 to 13.
        #expect(rows.map { $0[0] } == ["2", "3", "4", "5", "6", "7", "10", "11", "12", "13"])
        for (index, cell) in Self.cells.enumerated() {
            #expect(rows[index][1] == "bound")
            #expect(rows[index][5] == cell.reported, "ref of line \(index + 2)")
            #expect(rows[index][6] == cell.reported, "note of line \(index + 2)")
            #expect(rows[index][4] == f.ids[index], "our own device id is written as it is")
        }
        let failed = try #require(rows.last)
        #expect(failed[1] == "failed" && failed[2] == "QR_PROTOCOL_NOT_RECOGNIZED")
        #expect(failed[5] == "'=1+1" && failed[6] == "'+1")

        // The raw bytes: no line of the file has a cell that starts with a formula character.
        let text = try String(contentsOfFile: input + ".report.csv", encoding: .utf8)
        #expect(text.contains(#","'=HYPERLINK(""http://evil"",""x"")","#))
        #expect(text.contains(",'+cmd|calc,'+cmd|calc\n"))
        for start in ["=", "+", "-", "@", "\t", "\r"] {
            #expect(!text.contains("," + start), "a plain cell starts with \(start.debugDescription)")
            #expect(!text.contains(",\"" + start), "a quoted cell starts with \(start.debugDescription)")
        }
    }
}
