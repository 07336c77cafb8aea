/// A progress snapshot, reported after every chunk.
public struct BatchProgress: Sendable {
    public var rowsDone: Int
    public var bytesDone: Int64
    public var bytesTotal: Int64
    public var seconds: Double

    public var rowsPerSecond: Double { seconds > 0 ? Double(rowsDone) / seconds : 0 }

    /// Estimated seconds left, from bytes read so far (rows vary little in length).
    public var etaSeconds: Double? {
        guard bytesDone > 0, seconds > 0, bytesTotal > bytesDone else { return nil }
        return seconds * Double(bytesTotal - bytesDone) / Double(bytesDone)
    }
}
