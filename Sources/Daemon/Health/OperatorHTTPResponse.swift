/// A response of the operator's endpoints: always complete (`Content-Length`), always the last
/// on its connection (`Connection: close`; a scraper opens one connection per scrape anyway).
public struct OperatorHTTPResponse: Sendable, Equatable {
    public var status: Int
    public var contentType: String
    /// More header fields (`Cache-Control`, `Allow`, …), written in this order.
    public var headers: [Header]
    public var body: [UInt8]

    public struct Header: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    public init(status: Int, contentType: String, headers: [Header] = [], body: [UInt8]) {
        self.status = status
        self.contentType = contentType
        self.headers = headers
        self.body = body
    }

    /// A short plain-text response (errors).
    public static func text(_ status: Int, _ message: String, headers: [Header] = []) -> OperatorHTTPResponse {
        OperatorHTTPResponse(
            status: status,
            contentType: "text/plain; charset=utf-8",
            headers: headers,
            body: Array((message + "\n").utf8)
        )
    }

    /// The bytes on the wire: status line, fields, and the body unless the request was `HEAD`
    /// (RFC 9110 §9.3.2: the same fields, `Content-Length` included, without the content).
    func serialized(includingBody: Bool) -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(Self.reasonPhrase(status))\r\n"
        head += "Content-Type: \(contentType)\r\n"
        head += "Content-Length: \(body.count)\r\n"
        for header in headers {
            head += "\(header.name): \(header.value)\r\n"
        }
        head += "Connection: close\r\nServer: nbgwd\r\n\r\n"
        var bytes = Array(head.utf8)
        if includingBody { bytes += body }
        return bytes
    }

    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 400: "Bad Request"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}
