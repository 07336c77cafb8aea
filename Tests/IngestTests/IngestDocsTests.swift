import Foundation
import Hummingbird
import HummingbirdTesting
import Ingest
import Testing

@Suite("docs/ingest-api.yaml matches the server")
struct IngestDocsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The (method, path) pairs under `paths:` in the OpenAPI document (a minimal reader for the
    /// document's own layout: paths at two spaces of indentation, methods at four).
    static func documentedRoutes() throws -> Set<IngestService.Route> {
        let text = try String(contentsOf: root.appendingPathComponent("docs/ingest-api.yaml"), encoding: .utf8)
        var routes: Set<IngestService.Route> = []
        var inPaths = false
        var path: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "paths:" {
                inPaths = true
                continue
            }
            guard inPaths else { continue }
            if !line.isEmpty, !line.hasPrefix(" "), !line.hasPrefix("#") { break }
            if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
                path = String(line.dropFirst(2).dropLast())
            } else if let path, line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") {
                let method = line.trimmingCharacters(in: .whitespaces).dropLast().uppercased()
                if ["GET", "POST", "PUT", "DELETE", "PATCH"].contains(method) {
                    routes.insert(.init(method: method, path: path))
                }
            }
        }
        return routes
    }

    @Test("Every documented path and method is a route, and every route is documented")
    func routeTable() throws {
        let documented = try IngestDocsTests.documentedRoutes()
        #expect(
            documented == Set(IngestService.routes),
            "documented: \(documented.sorted { $0.description < $1.description })"
        )
    }

    @Test("Every documented route answers on the live server (not 404 NOT_FOUND / 405)")
    func liveRoutes() async throws {
        let fixture = try await IngestFixture(devices: 1)
        try await fixture.withServer { client in
            for route in IngestService.routes {
                let uri = route.path.replacingOccurrences(of: "{deviceId}", with: fixture.ids[0])
                    .replacingOccurrences(of: "{home}", with: "lab")
                    .replacingOccurrences(of: "{token}", with: "AAAAAAAAAAAAAAAAAAAA")
                let reply = try await client.call(
                    HTTPRequest.Method(route.method)!,
                    uri,
                    headers: fixture.headers(),
                    body: "{}"
                )
                #expect(reply.code != "NOT_FOUND" && reply.code != "METHOD_NOT_ALLOWED", "\(route): \(reply.body)")
                #expect(reply.status != 500, "\(route): \(reply.body)")
            }
        }
    }

    @Test("Every error code the API can answer with is documented")
    func errorCodes() throws {
        let text = try String(
            contentsOf: IngestDocsTests.root.appendingPathComponent("docs/ingest-api.yaml"),
            encoding: .utf8
        )
        for code in IngestError.allCodes {
            #expect(text.contains(code), "\(code) missing from docs/ingest-api.yaml")
        }
    }
}
