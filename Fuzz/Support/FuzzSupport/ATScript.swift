/// The input of the AT targets after the seed: a script of segments separated by 0xFF. A segment
/// starting with `>` is a command the host sends (`>AT+CEREG?`), any other is bytes the modem
/// sends. Modem segments before the first command arrive at start (boot text); each later one
/// answers one write of the host's, in order (commands, and the session's own resync probes).
/// `tools/fuzz-seeds.py` writes the annotated transcripts of docs/at-logs in this form; the three
/// AT targets share these seeds (Fuzz/Corpus/fuzz-at).
public struct ATScript {
    /// Commands per input: enough for boot, probe and resync stories (the longest transcript in
    /// docs/at-logs has 8), bounded because each one costs the session target a round trip
    /// (measured: 24 allowed, ~200 inputs/s; 8, see docs/fuzzing.md).
    public static let maximumCommands = 8

    public var boot: [[UInt8]] = []
    public var commands: [String] = []
    public var replies: [[UInt8]] = []

    public init(_ payload: ArraySlice<UInt8>) {
        for segment in payload.split(separator: 0xFF, omittingEmptySubsequences: false) {
            if segment.first == UInt8(ascii: ">") {
                guard commands.count < Self.maximumCommands else { break }
                commands.append(String(decoding: segment.dropFirst(), as: UTF8.self))
            } else if commands.isEmpty {
                boot.append(Array(segment))
            } else {
                replies.append(Array(segment))
            }
        }
    }
}
