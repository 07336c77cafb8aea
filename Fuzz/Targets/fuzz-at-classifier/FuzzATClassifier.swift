import FuzzSupport

@testable import ATKit

/// ``ATLineClassifier`` on every line a modem's bytes frame into, with and without a command in
/// flight.
///
/// Input: 8 bytes of seed (unused here, kept so the AT targets share their seeds), then an
/// ``ATScript``: its modem bytes are framed, its first two commands give the expectations.
///
/// Properties: the classifier is total (no trap) on every framed line, with nothing in flight and
/// with each of the first two commands in flight; a final result with nothing in flight is
/// unsolicited.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzATClassifier.run(ATScript(FuzzInput(data, size).seedAndPayload.payload))
    return 0
}

enum FuzzATClassifier {
    static func run(_ script: ATScript) {
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
