import FuzzSupport

@testable import ATKit

/// ``ATLineFramer`` on any bytes a modem (or a broken cable) can send.
///
/// Input: 8 bytes that seed the split plan, then the bytes (the AT targets' seeds, fed raw).
///
/// Property: the bytes fed whole and in random chunks (single bytes among them) give the same
/// events, with the default line limit and with a 16-byte one (where lines are cut). `feed(_:)` on
/// a whole array is the byte-by-byte path itself, so a third feed would test nothing more.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let (seed, payload) = FuzzInput(data, size).seedAndPayload
    var generator = SplitMix64(seed: seed)
    FuzzATFramer.run(Array(payload), &generator)
    return 0
}

enum FuzzATFramer {
    static func run(_ bytes: [UInt8], _ generator: inout SplitMix64) {
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
}
