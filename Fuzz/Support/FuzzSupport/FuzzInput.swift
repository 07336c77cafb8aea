/// Reads a fuzz input from the front: a seed for split plans, then the payload.
public struct FuzzInput {
    public let bytes: [UInt8]

    public init(_ data: UnsafePointer<UInt8>, _ size: Int) {
        bytes = Array(UnsafeBufferPointer(start: data, count: size))
    }

    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The first 8 bytes as a seed (zero-padded when shorter) and the rest.
    public var seedAndPayload: (seed: UInt64, payload: ArraySlice<UInt8>) {
        var seed: UInt64 = 0
        for byte in bytes.prefix(8) { seed = seed << 8 | UInt64(byte) }
        return (seed, bytes.dropFirst(8))
    }

    /// `bytes` cut into chunks at random places: a quarter single bytes, a quarter up to `maxChunk`,
    /// half anywhere up to the rest; the chunks concatenate to `bytes`.
    public static func split<C: Collection>(
        _ bytes: C,
        using generator: inout SplitMix64,
        maxChunk: Int = 16
    ) -> [[UInt8]] where C.Element == UInt8 {
        var chunks: [[UInt8]] = []
        var rest = ArraySlice(bytes)
        while !rest.isEmpty {
            let roll = generator.next()
            let size: Int =
                switch roll % 4 {
                case 0: 1
                case 1: Int((roll >> 8) % UInt64(maxChunk)) + 1
                default: Int((roll >> 16) % UInt64(max(1, rest.count))) + 1
                }
            chunks.append(Array(rest.prefix(size)))
            rest = rest.dropFirst(size)
        }
        return chunks
    }
}
