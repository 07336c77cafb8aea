// Needs `.product(name: "MetricsTestKit", package: "swift-metrics")` in the IngestTests target
// (Package.swift); until it is declared this suite is compiled out.
#if canImport(MetricsTestKit)
import MetricsTestKit
import NBGWCore
import Provisioning
import Testing

@Suite("nbgw_binds_total counts every bind BindingService attempts")
struct BindMetricsTests {
    @Test("bound, unchanged and rejected binds are counted per source")
    func counters() async throws {
        let fixture = try await IngestFixture(devices: 2)
        let metrics = TestMetrics()
        let service = BindingService(cloud: fixture.cloud, registry: fixture.registry, metrics: metrics)
        _ = try await service.bind(qr: fixture.labels[0], account: "alice", home: "lab", source: .http)
        _ = try await service.bind(qr: fixture.labels[0], account: "alice", home: "lab", source: .http)
        _ = try await service.bind(qr: fixture.labels[1], account: "alice", home: "lab", source: .cli)
        // A rule refusal (in the store) and a payload refusal (before it) are both `rejected`.
        await #expect(throws: NBGWError.self) {
            try await service.bind(qr: fixture.labels[0], account: "bob", home: "bobs", source: .http)
        }
        await #expect(throws: NBGWError.self) {
            try await service.bind(qr: "hello", account: "alice", home: "lab", source: .http)
        }
        BindingService.countBinds(source: .csv, result: .bound, by: 25, metrics: metrics)

        func total(_ source: String, _ result: String) throws -> Int64 {
            try metrics.expectCounter("nbgw_binds_total", [("source", source), ("result", result)]).totalValue
        }
        #expect(try total("http", "bound") == 1)
        #expect(try total("http", "unchanged") == 1)
        #expect(try total("http", "rejected") == 2)
        #expect(try total("cli", "bound") == 1)
        #expect(try total("csv", "bound") == 25)
        #expect(throws: (any Error).self) { try total("cli", "rejected") }
    }
}
#endif
