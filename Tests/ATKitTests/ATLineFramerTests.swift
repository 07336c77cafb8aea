import ATKit
import Testing

@Suite struct ATLineFramerTests {
    private func lines(_ events: [ATLineFramer.Event]) -> [String] {
        events.compactMap { if case .line(let line) = $0 { line.text } else { nil } }
    }

    private func feedByteByByte(_ bytes: [UInt8], into framer: inout ATLineFramer) -> [ATLineFramer.Event] {
        var events: [ATLineFramer.Event] = []
        for byte in bytes {
            framer.feed(byte, into: &events)
        }
        return events
    }

    @Test func splitsCRLFFramedResponsesIntoLinesAndDropsEmptyOnes() {
        var framer = ATLineFramer()
        let events = framer.feed(Transcripts.bytes("AT+CGMI\r\r\nQuectel\r\n\r\nOK\r\n"))
        #expect(lines(events) == ["AT+CGMI", "Quectel", "OK"])
        #expect(framer.bufferedByteCount == 0)
    }

    @Test func treatsLFCRFromMT2625BootTextAsOneSeparator() {
        var framer = ATLineFramer()
        let events = feedByteByByte(Transcripts.bc66Boot, into: &framer)
        #expect(
            lines(events) == [
                "F1: 0000 0000", "V0: 0000 0000 [0001]", "00: 0006 000C", "01: 0000 0000", "U0: 0000 0001 [0000]",
                "T0: 0000 00B4", "Leaving the BROM", "+CPIN: READY",
            ]
        )
    }

    @Test func echoTerminatedByCROnlyStillEndsTheLine() {
        var framer = ATLineFramer()
        #expect(lines(framer.feed(Transcripts.bytes("AT\rOK\r\n"))) == ["AT", "OK"])
    }

    @Test(arguments: [
        Transcripts.bc95Reboot, Transcripts.bc66Boot, Transcripts.bc66ATI, Transcripts.bg96Boot,
        Transcripts.bg96CGSNWithURC, Transcripts.nrf91CEREGRead, Transcripts.sim7080Reset, Transcripts.sim7080CNACT,
    ])
    func givesTheSameEventsWhateverTheChunking(transcript: [UInt8]) {
        var whole = ATLineFramer()
        let expected = whole.feed(transcript)
        var single = ATLineFramer()
        #expect(feedByteByByte(transcript, into: &single) == expected)
        for split in 0...transcript.count {
            var framer = ATLineFramer()
            let events = framer.feed(transcript[..<split]) + framer.feed(transcript[split...])
            #expect(events == expected, "split at \(split)")
        }
    }

    @Test func dropsNULsAndControlBytesBeforeALine() {
        var framer = ATLineFramer()
        let events = framer.feed([0x00, 0x00, 0x11, 0x13, 0x1A, 0x1B] + Transcripts.bytes("OK\r\n"))
        #expect(lines(events) == ["OK"])
    }

    @Test func decodesInvalidUTF8LossilyInsteadOfFailing() throws {
        var framer = ATLineFramer()
        let events = feedByteByByte(Transcripts.sim7080Reset, into: &framer)
        let decoded = lines(events)
        #expect(decoded.count == 5)
        #expect(decoded.first?.contains("\u{FFFD}") == true)
        #expect(Array(decoded.dropFirst()) == ["RDY", "+CFUN: 1", "+CPIN: READY", "SMS Ready"])
    }

    @Test func survivesArbitraryBytesWithBoundedLines() {
        var generator = SplitMix64(seed: 0x5EED)
        var framer = ATLineFramer(maxLineLength: 64)
        for _ in 0..<20_000 {
            let byte = UInt8(truncatingIfNeeded: generator.next())
            var events: [ATLineFramer.Event] = []
            framer.feed(byte, into: &events)
            for case .line(let line) in events {
                #expect(line.text.unicodeScalars.count <= 64)
            }
            #expect(framer.bufferedByteCount <= 64)
        }
    }

    @Test func recognisesGreaterThanPromptWithoutTerminator() {
        var framer = ATLineFramer()
        let events = feedByteByByte(Transcripts.bytes("AT+CMGS=23\r\r\n> "), into: &framer)
        #expect(events == [.line(ATLine("AT+CMGS=23")), .prompt(.greaterThan)])
    }

    @Test func recognisesSARAAtPromptWithoutTerminator() {
        var framer = ATLineFramer()
        let events = feedByteByByte(Transcripts.bytes("\r\n@"), into: &framer)
        #expect(events == [.prompt(.at)])
    }

    @Test func promptAfterJunkBytesAtLineStartIsStillAPrompt() {
        var framer = ATLineFramer()
        #expect(framer.feed([0x00, 0x3E, 0x20]) == [.prompt(.greaterThan)])
    }

    @Test func promptTextInsideALineIsNotAPrompt() {
        var framer = ATLineFramer()
        let events = framer.feed(Transcripts.bytes("a> b\r\n"))
        #expect(events == [.line(ATLine("a> b"))])
    }

    @Test func unarmedPromptWaitsForATerminatorLikeAnyLine() {
        var framer = ATLineFramer(prompts: [])
        #expect(framer.feed(Transcripts.bytes("> ")).isEmpty)
        #expect(framer.feed(Transcripts.bytes("\r\n")) == [.line(ATLine("> "))])
    }

    @Test func cutsAnOverLongLineFlagsItAndResumesAtTheNextTerminator() {
        var framer = ATLineFramer(maxLineLength: 16)
        let long = String(repeating: "A", count: 100)
        let events = framer.feed(Transcripts.bytes(long + "\r\nOK\r\n"))
        #expect(
            events == [.line(ATLine(String(repeating: "A", count: 16), truncatedByteCount: 84)), .line(ATLine("OK"))]
        )
        #expect(events.first.map { if case .line(let line) = $0 { line.isTruncated } else { false } } == true)
    }

    @Test func memoryStaysBoundedWhenNoTerminatorEverComes() {
        var framer = ATLineFramer(maxLineLength: 32)
        _ = framer.feed([UInt8](repeating: 0x41, count: 1 << 20))
        #expect(framer.bufferedByteCount == 32)
    }

    @Test func finishReturnsTheUnterminatedLastLine() {
        var framer = ATLineFramer()
        #expect(framer.feed(Transcripts.bytes("+CSQ: 17,99")).isEmpty)
        #expect(framer.finish() == [.line(ATLine("+CSQ: 17,99"))])
        #expect(framer.finish().isEmpty)
    }
}

/// A tiny deterministic generator for fuzz-style tests.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
