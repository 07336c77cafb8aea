/// One HTTP exchange, abstracted so the retry, token and signing logic can be tested against a
/// scripted transport and run against AsyncHTTPClient in production.
public protocol CloudHTTPTransport: Sendable {
    /// Sends `request` and returns the complete response.
    ///
    /// - Throws: ``CloudTransportError`` when no HTTP response arrived (the caller decides whether
    ///   to retry); `CancellationError` when the task was cancelled.
    func send(_ request: CloudHTTPRequest, timeout: Duration) async throws -> CloudHTTPResponse

    /// Releases connections and threads. Sending after shutdown fails.
    func shutdown() async
}

/// A request ready for the wire: the URL's path and query are exactly the signed ones.
public struct CloudHTTPRequest: Sendable, Equatable {
    public struct Header: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public var method: String
    /// Absolute URL: base URL + the canonical path and query.
    public var url: String
    public var headers: [Header]
    public var body: [UInt8]

    public init(method: String, url: String, headers: [Header], body: [UInt8]) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// The first header with this name (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

public struct CloudHTTPResponse: Sendable, Equatable {
    public var status: Int
    /// Header names lower-cased.
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String] = [:], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// No HTTP response: what happened, in words fit for a message.
public struct CloudTransportError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        /// Connect or request timeout.
        case timedOut
        /// Refused, reset or closed before a response.
        case connection
        /// The request could not be built (URL) or the client is shut down.
        case unusable
    }

    public var reason: Reason
    public var detail: String

    public init(_ reason: Reason, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }

    public var description: String { detail }
}
