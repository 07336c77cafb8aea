import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Ingest
import Registry
import Testing

/// Bind-only keys for scanners and stations (security review I2: any key could list every binding,
/// read device trails and unbind).
@Suite("API key scopes")
struct IngestAPIKeyScopeTests {
    @Test("a key of scope bind parses and binds, and is refused 403 on every route that reads or undoes")
    func bindScope() async throws {
        let fixture = try await IngestFixture(devices: 2)
        let scanner = try IngestAPIKeys.create(name: "scanner-bind", scope: .bind, registry: fixture.registry)
        #expect(scanner.scope == .bind)
        try await fixture.withServer { client in
            let headers = fixture.headers(key: scanner.key)
            let parse = try await client.call(
                .post,
                "/v1/qr/parse",
                headers: headers,
                body: #"{"qr":"\#(fixture.labels[0])"}"#
            )
            #expect(parse.status == 200)
            let bind = try await client.call(
                .post,
                "/v1/bindings",
                headers: headers,
                body: #"{"qr":"\#(fixture.labels[0])","account":"alice","home":"lab"}"#
            )
            #expect(bind.status == 201)
            for (method, uri) in [
                (HTTPRequest.Method.get, "/v1/bindings"), (.delete, "/v1/bindings/\(fixture.ids[0])"),
                (.get, "/v1/devices/\(fixture.ids[0])"), (.get, "/v1/modems"),
                (.post, "/v1/homes/lab/pairing-tokens"),
            ] {
                let refused = try await client.call(method, uri, headers: headers, body: method == .post ? "{}" : nil)
                #expect(refused.status == 403, "\(method) \(uri)")
                #expect(refused.code == "PERMISSION_DENIED", "\(method) \(uri)")
                #expect(refused.message?.contains("scope bind") == true, "\(method) \(uri)")
            }
            // Nothing was undone: the binding is still there for a full key.
            let list = try await client.call(.get, "/v1/bindings", headers: fixture.headers())
            #expect(list.status == 200 && list.body.contains(fixture.ids[0]))
        }
    }

    @Test("keys made before scopes existed keep every route; the scope cannot be changed in the store")
    func existingKeysAreFull() async throws {
        let fixture = try await IngestFixture(devices: 0)
        let keys = try fixture.registry.apiKeys.all()
        #expect(keys.map(\.scope) == [.full])
        let bind = try IngestAPIKeys.create(name: "station", scope: .bind, registry: fixture.registry)
        #expect(throws: (any Error).self) {
            try DatabaseQueue(path: fixture.path).write { db in
                try db.execute(sql: "UPDATE api_key SET scope = 'full' WHERE name = ?", arguments: [bind.name])
            }
        }
    }
}
