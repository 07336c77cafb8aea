import Foundation
import Testing

@testable import Provisioning

@Suite("CSV reader: RFC 4180, streaming, resynchronising after broken lines")
struct CSVReaderTests {
    func records(_ bytes: [UInt8], bufferSize: Int = 1, scansRuns: Bool = true) throws -> [CSVRecord] {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("csv-\(UUID().uuidString).csv")
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let reader = try CSVReader(path: url.path, bufferSize: bufferSize)
        reader.scansUnquotedRuns = scansRuns
        var out: [CSVRecord] = []
        while let record = try reader.next() { out.append(record) }
        return out
    }

    static let corpus: [UInt8] =
        [0xEF, 0xBB, 0xBF] + Array("qr,ref\r\n".utf8)  // BOM, CRLF header
        + Array("a,1\r\n".utf8)  // line 2
        + Array("\"b,with,commas\",\"say \"\"hi\"\"\"\r\n".utf8)  // line 3
        + Array("\r\n\n".utf8)  // lines 4-5 empty
        + Array("\"multi\nline\",x\n".utf8)  // lines 6-7, LF only
        + Array("bad\"quote,y\n".utf8)  // line 8
        + Array("inv".utf8) + [0xFF, 0xFE] + Array(",z\n".utf8)  // line 9 invalid UTF-8
        + Array("\"never closed,q\nnext,1\n".utf8)  // line 10 broken, line 11 read again
        + Array("caf\u{E9},\u{4E2D}\r".utf8)  // line 12, lone CR
        + Array("last,no-newline".utf8)  // line 13

    @Test(
        "A realistic corpus fed through a one-byte buffer gives the right fields, lines and offsets",
        arguments: [1, 3, 7, 64, 65536]
    )
    func corpus(bufferSize: Int) throws {
        let got = try records(Self.corpus, bufferSize: bufferSize)
        #expect(got.map(\.line) == [1, 2, 3, 6, 8, 9, 10, 11, 12, 13])
        #expect(got[0].fields == ["qr", "ref"])
        #expect(got[1].fields == ["a", "1"])
        #expect(got[2].fields == ["b,with,commas", "say \"hi\""])
        #expect(got[3].fields == ["multi\nline", "x"])
        #expect(got[4].problem?.contains("quote") == true)
        #expect(got[5].problem?.contains("UTF-8") == true)
        #expect(got[6].problem?.contains("never closed") == true)
        #expect(got[7].fields == ["next", "1"])
        #expect(got[8].fields == ["caf\u{E9}", "\u{4E2D}"])
        #expect(got[9].fields == ["last", "no-newline"])
        // Offsets chain: each record ends where the next begins (empty lines aside).
        #expect(got[1].endOffset == got[2].startOffset)
        #expect(got.last?.endOffset == Int64(Self.corpus.count))
    }

    @Test("Reading can resume at any record boundary with the right line numbers")
    func resumeAtBoundary() throws {
        let all = try records(Self.corpus, bufferSize: 4096)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("csv-\(UUID().uuidString).csv")
        try Data(Self.corpus).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        for (index, record) in all.enumerated() {
            let reader = try CSVReader(path: url.path, offset: record.endOffset, line: record.nextLine, bufferSize: 5)
            var rest: [CSVRecord] = []
            while let next = try reader.next() { rest.append(next) }
            #expect(rest.map(\.line) == all.dropFirst(index + 1).map(\.line))
            #expect(rest.map(\.fields) == all.dropFirst(index + 1).map(\.fields))
        }
    }

    @Test("A record longer than the cap is refused and reading continues on the next line")
    func overlongRecord() throws {
        let long =
            Array("qr\n\"".utf8) + Array(repeating: UInt8(ascii: "x"), count: CSVReader.maximumRecordBytes + 10)
            + Array("\"\nok\n".utf8)
        let got = try records(long, bufferSize: 4096)
        #expect(got.first?.fields == ["qr"])
        #expect(got[1].problem?.contains("longer") == true)
        #expect(got.last?.fields == ["ok"])
    }

    /// The fast path (unquoted fields a run at a time) against the byte loop: random files of
    /// delimiters, quotes, line breaks, UTF-8 and invalid bytes, and records around the length cap
    /// (one byte under it to twice over it, where a run that ignored the cap would fill the
    /// buffer and read as the end of the file).
    @Test(
        "Unquoted fields read a run at a time give the same records as the byte loop",
        arguments: [1, 7, 4096, 1 << 20]
    )
    func unquotedRunsEqualTheByteLoop(bufferSize: Int) throws {
        let alphabet = Array("ab1,\"\r\n ".utf8) + [0xC3, 0xA9, 0xFF]
        var generator = SystemRandomNumberGenerator()
        var files: [[UInt8]] = (0..<200).map { _ in
            (0..<Int.random(in: 0...120, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
        }
        let cap = CSVReader.maximumRecordBytes
        for length in [cap - 2, cap - 1, cap, cap + 1, 2 * cap + 5] {
            let field = [UInt8](repeating: UInt8(ascii: "x"), count: length)
            files.append(Array("qr\n".utf8) + field + Array("\nok\n".utf8))
            files.append(Array("qr\na,".utf8) + field + Array(",b\r\nok".utf8))
        }
        for file in files {
            let fast = try records(file, bufferSize: bufferSize)
            #expect(fast == (try records(file, bufferSize: bufferSize, scansRuns: false)), "\(file.prefix(200))")
        }
    }

    /// fuzz-csv's first finding, minimised (Fuzz/Corpus/fuzz-csv/crash-9cadcf926581cf3cce2ae7881f1289ddedc92b6a): in a
    /// quoted field that never closes, a CR that ended one read and an LF that began the next were
    /// two line breaks, so the record was cut at the CR and every line number after it was one too
    /// high. One read or many must give the same records.
    @Test("A CR LF in a quoted field is one line break even when a read ends between them", arguments: [1, 2, 3])
    func splitCRLFInQuotes(bufferSize: Int) throws {
        let bytes = Array("\",\r\n".utf8)
        let whole = try records(bytes, bufferSize: 4096)
        #expect(whole.count == 1)
        #expect(whole.first?.endOffset == 4 && whole.first?.nextLine == 2, "\(whole)")
        #expect(try records(bytes, bufferSize: bufferSize) == whole)
        let later = Array("a\n\"x,\r\nb\n".utf8)
        #expect(try records(later, bufferSize: bufferSize) == records(later, bufferSize: 4096))
    }
}
