import Foundation
import NBGWCore

/// A TCP address to listen on, written `HOST:PORT` (`127.0.0.1:9464`, `[::1]:9464`, `localhost:0`).
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// A host name or an IP address (IPv6 without brackets).
    public var host: String
    /// 0 to 65535; 0 lets the kernel pick a free port (tests).
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT`; nil when the text is not of that form or the port is out of range.
    public init?(parsing text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let host: Substring
        let portText: Substring
        if trimmed.hasPrefix("[") {
            guard let close = trimmed.firstIndex(of: "]") else { return nil }
            host = trimmed[trimmed.index(after: trimmed.startIndex)..<close]
            let rest = trimmed[trimmed.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            portText = rest.dropFirst()
        } else {
            guard let colon = trimmed.lastIndex(of: ":") else { return nil }
            host = trimmed[..<colon]
            portText = trimmed[trimmed.index(after: colon)...]
            guard !host.contains(":") else { return nil }
        }
        guard !host.isEmpty, host.allSatisfy({ $0.isLetter || $0.isNumber || ".-:_".contains($0) }),
            !portText.isEmpty, portText.allSatisfy(\.isASCII), let port = Int(portText), (0...65535).contains(port)
        else { return nil }
        self.host = String(host)
        self.port = port
    }

    /// True for an IP literal in 127.0.0.0/8, `::1` and `localhost`: reachable from this machine
    /// only. A name is never loopback by its spelling (`127.evil.example`): ``LoopbackHost``.
    public var isLoopback: Bool {
        LoopbackHost.contains(host)
    }

    /// `HOST:PORT`, with brackets around an IPv6 host.
    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
