import Hummingbird

/// `GET /metrics` on the metrics listener (Prometheus text format); nothing else.
public struct FleetMetricsResponder: HTTPResponder {
    public typealias Context = BasicRequestContext

    let store: FleetStore

    public init(store: FleetStore) { self.store = store }

    public func respond(to request: Request, context: Context) async throws -> Response {
        guard request.method == .get, request.uri.path == "/metrics" else {
            return Response(status: .notFound)
        }
        let up = await store.ping()
        return Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: store.counters.exposition(up: up)))
        )
    }
}
