import FuzzSupport
import TestClocks

@testable import ATKit

/// An ``ATSession`` fed from a scripted transport, on bytes a modem (or a broken cable) can send.
///
/// Input: 8 bytes that seed the split plan, then an ``ATScript`` (boot bytes, commands, and the
/// modem's answer to each write).
///
/// Properties: the script played with every modem segment in one chunk and in random chunks gives
/// the same command results, URCs, diagnostics and written bytes; every command ends (answered,
/// failed or timed out), and one with nothing left to answer it always has a timer armed (no hang).
///
/// The framer and the classifier have targets of their own (fuzz-at-framer, fuzz-at-classifier):
/// a session round trip costs about ten times what framing and classifying the same bytes does, and
/// together they ran at a tenth of the speed (docs/fuzzing.md).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzATSession.run(FuzzInput(data, size))
    return 0
}

enum FuzzATSession {
    static func run(_ input: FuzzInput) {
        let (seed, payload) = input.seedAndPayload
        var generator = SplitMix64(seed: seed)
        let script = ATScript(payload)
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
}
