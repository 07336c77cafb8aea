/// A request to the operator's endpoints, as far as they look at it: the request line
/// (RFC 9112 §3). Header fields are read (the head must end within the size limit) but not kept:
/// `/metrics` and `/healthz` depend on none of them.
public struct OperatorHTTPRequest: Sendable, Equatable {
    /// The method token, as sent (`GET`, `HEAD`, …; RFC 9110 §9: case-sensitive).
    public var method: String
    /// The path of the origin-form target, without the query.
    public var path: String
    /// The query after `?`, if any.
    public var query: String?

    public init(method: String, path: String, query: String? = nil) {
        self.method = method
        self.path = path
        self.query = query
    }

    /// Why a request head was refused; the server answers 400 and closes the connection.
    public struct Malformed: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// Parses a request head: the bytes before the empty line that ends it (CRLF line ends, or
    /// bare LF, which RFC 9112 §2.2 lets a server accept).
    ///
    /// Accepted: `METHOD SP origin-form SP HTTP/1.x`, a method of token characters, a target
    /// starting with `/` and made of visible ASCII. Anything else is ``Malformed``.
    public static func parse(head: some Collection<UInt8>) throws(Malformed) -> OperatorHTTPRequest {
        let line = head.prefix { $0 != UInt8(ascii: "\n") }
        var requestLine = Array(line)
        if requestLine.last == UInt8(ascii: "\r") { requestLine.removeLast() }
        let parts = requestLine.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw Malformed(description: "the request line is not METHOD TARGET VERSION")
        }
        let method = parts[0]
        let target = parts[1]
        let version = parts[2]
        guard !method.isEmpty, method.allSatisfy(isTokenCharacter) else {
            throw Malformed(description: "the method is not a token")
        }
        guard version.count == 8, version.starts(with: Array("HTTP/1.".utf8)),
            let minor = version.last, minor == UInt8(ascii: "0") || minor == UInt8(ascii: "1")
        else {
            throw Malformed(description: "the version is not HTTP/1.0 or HTTP/1.1")
        }
        guard target.first == UInt8(ascii: "/"), target.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw Malformed(description: "the target is not an absolute path")
        }
        let targetText = String(decoding: target, as: UTF8.self)
        let path: Substring
        var query: String?
        if let mark = targetText.firstIndex(of: "?") {
            path = targetText[..<mark]
            query = String(targetText[targetText.index(after: mark)...])
        } else {
            path = targetText[...]
        }
        return OperatorHTTPRequest(method: String(decoding: method, as: UTF8.self), path: String(path), query: query)
    }

    /// RFC 9110 §5.6.2 `tchar`.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    /// Where the head ends in `buffer`: the index just past the empty line (CRLF CRLF or LF LF,
    /// or a mix), or nil while it has not arrived.
    static func endOfHead(in buffer: [UInt8]) -> Int? {
        var index = 0
        var lineIsEmpty = true
        while index < buffer.count {
            let byte = buffer[index]
            if byte == UInt8(ascii: "\n") {
                if lineIsEmpty && index > 0 { return index + 1 }
                lineIsEmpty = true
            } else if byte != UInt8(ascii: "\r") {
                lineIsEmpty = false
            }
            index += 1
        }
        return nil
    }
}
