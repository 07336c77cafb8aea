import Foundation
import Hummingbird
import HummingbirdTesting
import Ingest
import Provisioning
import Registry
import Testing

@Suite("Ingest API under concurrency")
struct IngestConcurrencyTests {
    @Test("32 clients bind one device to 32 accounts at once: 1 success, 31 conflicts")
    func race() async throws {
        let fixture = try await IngestFixture(devices: 1, owners: 32)
        let replies = try await fixture.withServer { client in
            let port = try #require(client.port)
            return try await withThrowingTaskGroup(of: Reply.self) { group in
                for index in 0..<32 {
                    group.addTask {
                        try await TestClient.withClient(host: "127.0.0.1", port: port) { http in
                            let body = jsonBody([
                                "qr": fixture.labels[0], "account": "owner\(index)", "home": "home\(index)",
                            ])
                            return Reply(
                                try await http.execute(
                                    .init(
                                        "/v1/bindings",
                                        method: .post,
                                        headers: fixture.headers(),
                                        body: ByteBuffer(string: body)
                                    )
                                )
                            )
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(replies.filter { $0.status == 201 }.count == 1)
        #expect(replies.filter { $0.status == 409 && $0.code == "DEVICE_ALREADY_BOUND" }.count == 31)
        let binding = try #require(try fixture.registry.bindings.find(deviceID: fixture.ids[0]))
        #expect(binding.operator == fixture.keyName)
        let audit = try fixture.registry.audit.entries(deviceID: fixture.ids[0])
        #expect(audit.filter { $0.event == "bind" }.count == 1)
        #expect(audit.filter { $0.event == "bind_rejected" }.count == 31)
        let trail = try fixture.registry.audit.ingestTrail(deviceID: fixture.ids[0])
        #expect(trail.count == 32)
        #expect(Set(trail.compactMap(\.auditID)).count == 32)
    }

    @Test("HTTP binds arriving during a CSV batch: every device bound once, every outcome reported")
    func duringBatch() async throws {
        let batchRows = 400
        let httpOnly = 40
        let overlap = 20
        let fixture = try await IngestFixture(devices: batchRows + httpOnly)
        let csv = fixture.directory.appendingPathComponent("batch.csv").path
        var text = "qr,account,home\n"
        for index in 0..<batchRows { text += "\(fixture.labels[index]),alice,lab\n" }
        try text.write(toFile: csv, atomically: true, encoding: .utf8)
        let batchSummary = Task.detached {
            try BatchBinder(registry: fixture.registry, cloud: fixture.cloud).run(
                BatchRequest(inputPath: csv, operator: "csv-operator", chunkSize: 25)
            )
        }
        let replies = try await fixture.withServer { client in
            // The first `overlap` HTTP binds name devices the batch also binds (to bob): exactly one side wins.
            var targets = Array(0..<overlap).map { $0 * (batchRows / overlap) }
            targets += Array(batchRows..<(batchRows + httpOnly))
            var replies: [Int: Reply] = [:]
            for index in targets {
                replies[index] = try await client.call(
                    .post,
                    "/v1/bindings",
                    headers: fixture.headers(),
                    body: jsonBody(["qr": fixture.labels[index], "account": "bob", "home": "bobs"])
                )
            }
            return replies
        }
        let summary = try await batchSummary.value
        #expect(summary.rows == batchRows)
        let httpWins = replies.filter { $0.key < batchRows && $0.value.status == 201 }.count
        let httpLosses = replies.filter { $0.key < batchRows && $0.value.code == "DEVICE_ALREADY_BOUND" }.count
        #expect(httpWins + httpLosses == overlap)
        #expect(summary.failed == httpWins)
        #expect(summary.failuresByCode["DEVICE_ALREADY_BOUND", default: 0] == httpWins)
        #expect(summary.bound == batchRows - httpWins)
        #expect(replies.filter { $0.key >= batchRows }.allSatisfy { $0.value.status == 201 })
        var all: [BindingRecord] = []
        var cursor = ""
        while true {
            let page = try fixture.registry.bindings.list(limit: 1000, after: cursor)
            all += page
            guard let last = page.last else { break }
            cursor = last.deviceID
        }
        #expect(all.count == batchRows + httpOnly)
        #expect(Set(all.map(\.deviceID)).count == all.count)
        #expect(all.filter { $0.source == .http }.count == httpOnly + httpWins)
    }
}
