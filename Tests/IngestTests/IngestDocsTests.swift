import Foundation
import Hummingbird
import HummingbirdTesting
import Ingest
import NBGWCore
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

    /// `openapi-spec-validator` (PyPI, pinned in tools/contract/requirements.txt; tools/setup.sh
    /// installs it into .build-venv/), as an integrator's code generator or gateway would read them.
    @Test(
        "The published OpenAPI documents are valid OpenAPI (openapi-spec-validator)",
        arguments: ["docs/ingest-api.yaml", "docs/cloud-api.yaml"]
    )
    func validOpenAPI(_ document: String) throws {
        let validator =
            ProcessInfo.processInfo.environment["NBGW_OPENAPI_VALIDATOR"]
            ?? IngestDocsTests.root.appendingPathComponent(".build-venv/bin/openapi-spec-validator").path
        try #require(
            FileManager.default.isExecutableFile(atPath: validator),
            "no \(validator): run tools/setup.sh (it installs tools/contract/requirements.txt into .build-venv/)"
        )
        let process = Process()
        process.executableURL = URL(fileURLWithPath: validator)
        process.arguments = [IngestDocsTests.root.appendingPathComponent(document).path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(document): \(text)")
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

    @Test("A new pairing token's response has exactly the fields the spec requires, each spelled once")
    func tokenResponseFields() async throws {
        let text = try String(
            contentsOf: IngestDocsTests.root.appendingPathComponent("docs/ingest-api.yaml"),
            encoding: .utf8
        )
        let lines = text.split(separator: "\n").map(String.init)
        let start = try #require(lines.firstIndex(of: "  /v1/homes/{home}/pairing-tokens:"))
        let line = try #require(lines[start...].first { $0.contains("required: [") })
        let list = line.split(separator: "[")[1].split(separator: "]")[0]
        let required = Set(list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        #expect(required == ["token", "home", "expiresAt"])

        let fixture = try await IngestFixture(devices: 0)
        try await fixture.withServer { client in
            let reply = try await client.call(.post, "/v1/homes/lab/pairing-tokens", headers: fixture.headers())
            #expect(reply.status == 201)
            #expect(Set(reply.json.keys) == required, "\(reply.body)")
        }
    }

    @Test("docs/cli.md's exit-code table lists every ErrorCode with its exit code")
    func exitCodeTable() throws {
        let text = try String(contentsOf: IngestDocsTests.root.appendingPathComponent("docs/cli.md"), encoding: .utf8)
        var table: [String: Int32] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| ") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2, let exit = Int32(cells[0]), cells[1].hasPrefix("`") else { continue }
            table[cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = exit
        }
        for code in ErrorCode.allCases {
            #expect(table[code.rawValue] == code.exitCode, "\(code.rawValue) in docs/cli.md")
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
