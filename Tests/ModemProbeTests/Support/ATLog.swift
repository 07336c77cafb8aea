import ATKit
import Foundation

/// An annotated transcript from `docs/at-logs/` (notation in its README), parsed into the host's
/// commands and the module's bytes, and replayed through the framer and classifier.
struct ATLog {
    enum Step {
        case send(String)
        case receive([UInt8])
    }

    /// How the module's bytes are cut before feeding the framer.
    enum Chunking {
        case byteByByte
        case whole
        /// Random chunk sizes 1…`maximum` from a seeded generator.
        case random(seed: UInt64, maximum: Int)
    }

    /// What the replay saw, in order.
    struct Replay {
        var responses: [(command: String, response: ATResponse)] = []
        var urcs: [ATURC] = []
        var unsolicitedFinals: [ATFinalResult] = []
        var unsolicitedText: [String] = []

        /// The response to the `occurrence`th sending of `command`.
        func response(_ command: String, occurrence: Int = 0) -> ATResponse? {
            responses.filter { $0.command == command }.dropFirst(occurrence).first?.response
        }
    }

    let name: String
    let steps: [Step]

    /// Loads `docs/at-logs/<name>.md` from the source tree.
    init(_ name: String) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let url = root.appendingPathComponent("docs/at-logs/\(name).md")
        try self.init(name: name, markdown: String(contentsOf: url, encoding: .utf8))
    }

    init(name: String, markdown: String) {
        self.name = name
        var steps: [Step] = []
        var inBlock = false
        for rawLine in markdown.components(separatedBy: "\n") {
            if rawLine.hasPrefix("```") {
                inBlock = rawLine.hasPrefix("```at")
                continue
            }
            guard inBlock else { continue }
            var line = rawLine
            if let comment = line.range(of: "  -- ") { line = String(line[..<comment.lowerBound]) }
            if line.hasPrefix("--") || line.isEmpty { continue }
            if line.hasPrefix(">> ") {
                steps.append(.send(String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces)))
            } else if line.hasPrefix("<<~ ") {
                steps.append(.receive(Self.unescape(String(line.dropFirst(4)))))
            } else if line.hasPrefix("<< ") {
                steps.append(.receive(Array("\r\n\(line.dropFirst(3))\r\n".utf8)))
            }
        }
        self.steps = steps
    }

    /// All the module's bytes, in order.
    var moduleBytes: [UInt8] {
        steps.flatMap { step -> [UInt8] in
            if case .receive(let bytes) = step { bytes } else { [] }
        }
    }

    /// Replays the log: each `>>` makes its command pending (as the session would), the module's
    /// bytes up to the next `>>` are fed in chunks as `chunking` says.
    func replay(urcTable: ATURCTable = ModemDialect.unionURCTable, chunking: Chunking = .byteByByte) -> Replay {
        var framer = ATLineFramer(prompts: [])
        let classifier = ATLineClassifier(urcTable: urcTable)
        var generator = SeededGenerator(seed: { if case .random(let seed, _) = chunking { seed } else { 1 } }())
        var pending: ATResponseExpectation?
        var lines: [String] = []
        var replay = Replay()
        var buffered: [UInt8] = []

        func feed(_ bytes: [UInt8]) {
            for event in framer.feed(bytes) {
                guard case .line(let line) = event else { continue }
                switch classifier.classify(line.text, pending: pending) {
                case .echo, .prompt: break
                case .information(let text): lines.append(text)
                case .final(let final):
                    replay.responses.append(
                        (pending!.command, ATResponse(command: pending!.command, lines: lines, final: final))
                    )
                    pending = nil
                    lines = []
                case .urc(let urc): replay.urcs.append(urc)
                case .unsolicitedFinal(let final): replay.unsolicitedFinals.append(final)
                case .unsolicitedText(let text): if !text.isEmpty { replay.unsolicitedText.append(text) }
                }
            }
        }

        func flush() {
            switch chunking {
            case .whole:
                feed(buffered)
            case .byteByByte:
                for byte in buffered { feed([byte]) }
            case .random(_, let maximum):
                var rest = buffered[...]
                while !rest.isEmpty {
                    let size = Int.random(in: 1...max(1, maximum), using: &generator)
                    feed(Array(rest.prefix(size)))
                    rest = rest.dropFirst(size)
                }
            }
            buffered = []
        }

        for step in steps {
            switch step {
            case .send(let command):
                flush()
                pending = ATCommandRequest(command).expectation
                lines = []
            case .receive(let bytes):
                buffered += bytes
            }
        }
        flush()
        return replay
    }

    private static func unescape(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var characters = Array(text.utf8)[...]
        while let byte = characters.popFirst() {
            guard byte == UInt8(ascii: "\\"), let next = characters.popFirst() else {
                bytes.append(byte)
                continue
            }
            switch next {
            case UInt8(ascii: "r"): bytes.append(0x0D)
            case UInt8(ascii: "n"): bytes.append(0x0A)
            case UInt8(ascii: "\\"): bytes.append(0x5C)
            case UInt8(ascii: "x"):
                let hex = String(decoding: characters.prefix(2), as: UTF8.self)
                characters = characters.dropFirst(2)
                bytes.append(UInt8(hex, radix: 16) ?? 0)
            default:
                bytes += [byte, next]
            }
        }
        return bytes
    }
}

/// SplitMix64, for reproducible random splits.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
