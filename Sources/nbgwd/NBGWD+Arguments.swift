import ArgumentParser
import Daemon

extension NBGWD {
    /// `PATH` or `PATH:BAUD`.
    static func staticPort(_ text: String) throws -> DaemonConfiguration.StaticPort {
        if let colon = text.lastIndex(of: ":"), let baud = Int(text[text.index(after: colon)...]) {
            guard DaemonConfiguration.baudRates.contains(baud) else {
                throw ValidationError("--port \(text): \(baud) is not a standard serial speed")
            }
            let path = String(text[..<colon])
            guard path.hasPrefix("/") else { throw ValidationError("--port \(text): give an absolute device path") }
            return .init(path: path, baud: baud)
        }
        guard text.hasPrefix("/") else { throw ValidationError("--port \(text): give an absolute device path") }
        return .init(path: text)
    }

    /// `HOST:PORT`.
    static func address(_ text: String) throws -> ListenAddress {
        guard let address = ListenAddress(parsing: text) else {
            throw ValidationError("\(text) is not HOST:PORT (e.g. 127.0.0.1:9464)")
        }
        return address
    }
}
