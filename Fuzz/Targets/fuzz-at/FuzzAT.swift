import FuzzSupport
import TestClocks

@testable import ATKit

/// The AT stack on bytes a modem (or a broken cable) can send: the line framer, the classifier,
/// and an ``ATSession`` fed from a scripted transport.
///
/// Input: 8 bytes that seed the split plan, then a script of segments separated by 0xFF: a segment
/// starting with `>` is a command the host sends (`>AT+CEREG?`), any other is bytes the modem
/// sends. Modem segments before the first command arrive at start (boot text); each later one
/// answers one write of the host's, in order (commands, and the session's own resync probes).
///
/// Properties:
/// 1. Framer: the bytes fed whole and in random chunks (single bytes among them) give the same
///    events (also with a 16-byte line limit, where lines are cut).
/// 2. Classifier: total on every framed line, with and without each command in flight; a final
///    result with nothing in flight is unsolicited.
/// 3. Session: the script played with every modem segment in one chunk and in random chunks gives
///    the same command results, URCs, diagnostics and written bytes; every command ends (answered,
///    failed or timed out), and one with nothing left to answer it always has a timer armed.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzAT.run(FuzzInput(data, size))
    return 0
}

enum FuzzAT {
    /// Commands per input: enough for boot, probe and resync stories (the longest transcript in
    /// docs/at-logs has 8), bounded because each one costs a session round trip (measured: 24
    /// allowed, ~200 inputs/s; 8, see docs/fuzzing.md).
    static let maximumCommands = 8

    struct Script {
        var boot: [[UInt8]] = []
        var commands: [String] = []
        var replies: [[UInt8]] = []
    }

    static func parse(_ payload: ArraySlice<UInt8>) -> Script {
        var script = Script()
        for segment in payload.split(separator: 0xFF, omittingEmptySubsequences: false) {
            if segment.first == UInt8(ascii: ">") {
                guard script.commands.count < maximumCommands else { break }
                script.commands.append(String(decoding: segment.dropFirst(), as: UTF8.self))
            } else if script.commands.isEmpty {
                script.boot.append(Array(segment))
            } else {
                script.replies.append(Array(segment))
            }
        }
        return script
    }

    static func run(_ input: FuzzInput) {
        let (seed, payload) = input.seedAndPayload
        var generator = SplitMix64(seed: seed)
        framer(Array(payload), &generator)
        let script = parse(payload)
        classifier(script)
        Scheduler.install()
        let whole = SessionRun.play(script, split: nil)
        let split = SessionRun.play(script, split: generator.next())
        fuzzCheck(whole.results == split.results, "results differ: whole \(whole.results) split \(split.results)")
        fuzzCheck(whole.urcs == split.urcs, "URCs differ: whole \(whole.urcs) split \(split.urcs)")
        fuzzCheck(
            whole.diagnostics == split.diagnostics,
            "diagnostics differ: whole \(whole.diagnostics) split \(split.diagnostics)"
        )
        fuzzCheck(whole.writes == split.writes, "writes differ: whole \(whole.writes) split \(split.writes)")
    }

    /// Whole against random chunks (the chunks include single bytes; `feed(_:)` on a whole array
    /// is the byte-by-byte path itself, so a third feed would test nothing more).
    static func framer(_ bytes: [UInt8], _ generator: inout SplitMix64) {
        for limit in [4096, 16] {
            var whole = ATLineFramer(maxLineLength: limit)
            let expected = whole.feed(bytes) + whole.finish()
            var chunked = ATLineFramer(maxLineLength: limit)
            var inChunks: [ATLineFramer.Event] = []
            for chunk in FuzzInput.split(bytes, using: &generator) { inChunks += chunked.feed(chunk) }
            inChunks += chunked.finish()
            fuzzCheck(inChunks == expected, "framer in chunks: \(inChunks) vs whole \(expected)")
        }
    }

    static func classifier(_ script: Script) {
        let classifier = ATLineClassifier()
        var framer = ATLineFramer()
        let lines = (script.boot + script.replies).flatMap { framer.feed($0) } + framer.finish()
        let expectations = [nil] + script.commands.prefix(2).map { Optional(ATCommandRequest($0).expectation) }
        for case .line(let line) in lines {
            for pending in expectations {
                let verdict = classifier.classify(line.text, pending: pending)
                if pending == nil, let final = ATFinalResult(line: line.text.trimmingSpaces()) {
                    fuzzCheck(
                        verdict == .unsolicitedFinal(final),
                        "final \(final) with nothing in flight classified as \(verdict)"
                    )
                }
            }
        }
    }
}
