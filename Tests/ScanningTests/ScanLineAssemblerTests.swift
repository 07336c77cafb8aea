import Scanning
import Testing

@Suite("Scanning: a scanner's bytes, one at a time, become scans")
struct ScanLineAssemblerTests {
    static func feed(_ bytes: [UInt8], tab: Bool = false, finish: Bool = true) -> [ScanRead] {
        var assembler = ScanLineAssembler(endsWithTab: tab)
        var reads: [ScanRead] = []
        for byte in bytes {
            if let read = assembler.feed(byte) { reads.append(read) }
        }
        if finish, let last = assembler.finish() { reads.append(last) }
        return reads
    }

    @Test("LF, CR and CR LF each end a scan; empty lines are no scan")
    func terminators() {
        let reads = Self.feed(Array("one\ntwo\rthree\r\n\n\r\nfour".utf8))
        #expect(reads == [.payload("one"), .payload("two"), .payload("three"), .payload("four")])
    }

    @Test("the seed's JSON and any punctuation pass through byte for byte")
    func json() {
        let json = #"{"actionName":"device_net_conn_bind_nb","actionData":{"id":"nb01"}} ~`!@#$%^&*()"#
        #expect(Self.feed(Array((json + "\r\n").utf8)) == [.payload(json)])
    }

    @Test("a control character rejects its scan only; the next line starts clean")
    func controlCharacters() {
        let reads = Self.feed(Array("ab\u{1B}[2Jcd\nok\n".utf8) + [0x61, 0x00, 0x62, 0x0A, 0x7F, 0x0A])
        #expect(
            reads == [
                .rejected(ScanRejection(.controlCharacter(0x1B, offset: 2))),
                .payload("ok"),
                .rejected(ScanRejection(.controlCharacter(0x00, offset: 1))),
                .rejected(ScanRejection(.controlCharacter(0x7F, offset: 0))),
            ]
        )
        #expect(ScanRejection(.controlCharacter(0x1B, offset: 2)).code == .invalidQR)
    }

    @Test("a Tab ends a scan when it is the suffix, and is a control character otherwise")
    func tab() {
        #expect(Self.feed(Array("a\tb\t".utf8), tab: true) == [.payload("a"), .payload("b")])
        #expect(Self.feed(Array("a\tb\n".utf8)) == [.rejected(ScanRejection(.controlCharacter(0x09, offset: 1)))])
    }

    @Test("a scan over the cap is rejected with its size, without keeping its bytes, and the next one reads")
    func tooLong() {
        let long = [UInt8](repeating: 0x41, count: ScanLineAssembler.maxPayloadBytes + 10)
        let reads = Self.feed(long + [0x0A] + Array("next\n".utf8))
        #expect(
            reads == [
                .rejected(ScanRejection(.tooLong(bytes: ScanLineAssembler.maxPayloadBytes + 10))), .payload("next"),
            ]
        )
        #expect(ScanRejection(.tooLong(bytes: 1)).code == .payloadTooLarge)
        let exact = [UInt8](repeating: 0x42, count: ScanLineAssembler.maxPayloadBytes)
        #expect(
            Self.feed(exact + [0x0A]) == [.payload(String(repeating: "B", count: ScanLineAssembler.maxPayloadBytes))]
        )
    }

    @Test("bytes that are not UTF-8 are rejected; UTF-8 text is kept")
    func utf8() {
        #expect(Self.feed([0x61, 0xFF, 0xFE, 0x0A]) == [.rejected(ScanRejection(.invalidUTF8))])
        #expect(Self.feed(Array("Käse\n".utf8)) == [.payload("Käse")])
    }

    @Test("input ending without a suffix still gives its last scan; without finish it waits")
    func endOfInput() {
        #expect(Self.feed(Array("last".utf8)) == [.payload("last")])
        #expect(Self.feed(Array("last".utf8), finish: false) == [])
    }
}
