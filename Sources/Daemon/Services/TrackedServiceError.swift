/// One of the daemon's services failed: which one, and why.
struct TrackedServiceError: Error, CustomStringConvertible {
    let service: String
    let message: String

    var description: String { "\(service): \(message)" }
}
