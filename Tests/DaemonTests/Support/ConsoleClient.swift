import Foundation
import TestHTTP

/// The web console of a running `nbgwd`, signed in as one operator over loopback HTTP (the
/// sign-in form's double-submitted token, then the session cookie and the page's CSRF token).
struct ConsoleClient: Sendable {
    let port: Int
    let cookie: String
    let csrf: String

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Signs `name` in at `base` (`http://127.0.0.1:PORT`).
    static func signIn(base: String, name: String, password: String) async throws -> ConsoleClient {
        guard let port = base.split(separator: ":").last.flatMap({ Int($0) }) else {
            throw Failure(description: "no port in \(base)")
        }
        let form = try await LoopbackHTTPConnection.request(port: port, "GET", "/signin")
        guard let token = form.text.firstMatch(of: /name="csrf" value="([^"]+)"/)?.1,
            let preCookie = form.header("Set-Cookie")?.split(separator: ";").first
        else { throw Failure(description: "no sign-in form: \(form.status) \(form.text.prefix(300))") }
        let signedIn = try await LoopbackHTTPConnection.request(
            port: port,
            "POST",
            "/signin",
            headers: ["Cookie": String(preCookie), "Content-Type": "application/x-www-form-urlencoded"],
            body: Array("csrf=\(token)&name=\(name)&password=\(password)".utf8)
        )
        guard signedIn.status == 303,
            let session = signedIn.headers("Set-Cookie").first(where: { $0.hasPrefix("nbgw_session=") })
        else { throw Failure(description: "sign-in refused: \(signedIn.status) \(signedIn.text.prefix(300))") }
        let cookie = String(session.split(separator: ";")[0])
        let page = try await LoopbackHTTPConnection.request(port: port, "GET", "/bind", headers: ["Cookie": cookie])
        guard let csrf = page.text.firstMatch(of: /name="csrf-token" content="([^"]+)"/)?.1 else {
            throw Failure(description: "no CSRF token on /bind: \(page.status)")
        }
        return ConsoleClient(port: port, cookie: cookie, csrf: String(csrf))
    }

    /// A script's headers: the session, its CSRF token, JSON answers.
    var headers: [String: String] {
        ["Cookie": cookie, "X-CSRF-Token": csrf, "Accept": "application/json"]
    }

    func get(_ path: String) async throws -> LoopbackHTTPConnection.Response {
        try await LoopbackHTTPConnection.request(port: port, "GET", path, headers: headers)
    }

    func post(_ path: String) async throws -> LoopbackHTTPConnection.Response {
        try await LoopbackHTTPConnection.request(port: port, "POST", path, headers: headers)
    }

    /// `POST /batch?QUERY` with a body of `length` bytes (nil: chunked) that `chunks` hands out.
    func upload(
        query: String,
        length: Int64?,
        _ chunks: @escaping @Sendable () -> [UInt8]?
    ) async throws -> LoopbackHTTPConnection.Response {
        let connection = try await LoopbackHTTPConnection(port: port)
        var all = headers
        all["Content-Type"] = "text/csv"
        if let length { all["Content-Length"] = String(length) } else { all["Transfer-Encoding"] = "chunked" }
        try await connection.sendHead("POST", "/batch?\(query)", headers: all)
        try await connection.sendBody(chunked: length == nil, chunks)
        return try await connection.readResponse()
    }

    /// Polls `/batch/ID.json` until `done` says so, failing after `timeout`.
    func waitForBatch(
        _ id: Int,
        timeout: Duration = .seconds(180),
        until done: ([String: Any]) -> Bool
    ) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + timeout
        var last: [String: Any] = [:]
        while ContinuousClock.now < deadline {
            last = try await get("/batch/\(id).json").json
            if done(last) { return last }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw Failure(description: "batch \(id) not there after \(timeout): \(last)")
    }
}

/// CSV rows of one fixed length, generated as they are sent: `rows` rows after `header`, each
/// `row(i)` (the same length for every i), handed out about 256 KiB at a time.
final class CSVStream: Sendable {
    let header: [UInt8]
    let rows: Int
    let rowLength: Int
    let row: @Sendable (Int) -> String
    private let next = Locked(-1)

    init(header: String, rows: Int, row: @escaping @Sendable (Int) -> String) {
        self.header = Array(header.utf8)
        self.rows = rows
        self.row = row
        rowLength = row(1).utf8.count
    }

    /// The body's length in bytes.
    var length: Int64 { Int64(header.count + rows * rowLength) }

    /// The next part, nil at the end.
    func chunk() -> [UInt8]? {
        let start = next.value
        if start >= rows { return nil }
        if start < 0 {
            next.update { $0 = 0 }
            return header
        }
        let end = min(rows, start + max(1, 262_144 / rowLength))
        next.update { $0 = end }
        var bytes: [UInt8] = []
        bytes.reserveCapacity((end - start) * rowLength)
        for index in start..<end { bytes += Array(row(index + 1).utf8) }
        return bytes
    }
}
