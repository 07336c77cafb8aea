import ATKit

/// Runs framing and classification over a scripted dialogue, with the session's basic rule (a
/// command is pending from when it is "sent" until its final result), but none of its I/O or
/// timing. Used to test the two pure layers together against transcripts.
struct DialogReplayer {
    enum Outcome: Hashable, CustomStringConvertible {
        case response(command: String, lines: [String], final: ATFinalResult)
        case urc(String)
        case unrecognisedURC(String)
        case unsolicitedFinal(ATFinalResult)
        case text(String)
        case prompt(String)

        var description: String {
            switch self {
            case .response(let command, let lines, let final): "\(command) → \(lines) \(final)"
            case .urc(let line): "URC \(line)"
            case .unrecognisedURC(let line): "URC? \(line)"
            case .unsolicitedFinal(let final): "unsolicited \(final)"
            case .text(let line): "text \(line)"
            case .prompt(let text): "prompt \(text.debugDescription)"
            }
        }
    }

    private var framer = ATLineFramer(prompts: [])
    private let classifier: ATLineClassifier
    private var pending: ATResponseExpectation?
    private var lines: [String] = []
    private(set) var outcomes: [Outcome] = []

    init(urcTable: ATURCTable = .ts27007Baseline) {
        classifier = ATLineClassifier(urcTable: urcTable)
    }

    /// The host sends `request`; it is pending until a final result.
    mutating func send(_ request: ATCommandRequest) {
        pending = request.expectation
        framer.prompts = pending?.prompt.map { [$0] } ?? []
        lines = []
    }

    /// The modem's bytes, fed one at a time.
    mutating func receive(_ bytes: [UInt8]) {
        var events: [ATLineFramer.Event] = []
        for byte in bytes {
            framer.feed(byte, into: &events)
            for event in events {
                handle(event)
            }
            events.removeAll()
        }
    }

    private mutating func handle(_ event: ATLineFramer.Event) {
        switch event {
        case .prompt(let prompt):
            outcomes.append(.prompt(prompt.text))
            pending?.prompt = nil
            framer.prompts = []
        case .line(let line):
            switch classifier.classify(line.text, pending: pending) {
            case .echo: break
            case .prompt(let prompt): outcomes.append(.prompt(prompt.text))
            case .information(let text): lines.append(text)
            case .final(let final):
                outcomes.append(.response(command: pending?.command ?? "?", lines: lines, final: final))
                pending = nil
                lines = []
                framer.prompts = []
            case .urc(let urc): outcomes.append(urc.isRecognised ? .urc(urc.line) : .unrecognisedURC(urc.line))
            case .unsolicitedFinal(let final): outcomes.append(.unsolicitedFinal(final))
            case .unsolicitedText(let text): outcomes.append(.text(text))
            }
        }
    }
}
