import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TuyaCloud

/// `nbgw-cloud-load`: signed pairing-token + bind pairs against nbgw-cloud nodes, closed loop (as
/// fast as the nodes answer) or open loop at a fixed rate (latency measured from each request's
/// scheduled start, so a slow answer is not hidden by the next request waiting for it). Prints
/// one JSON line. Used by tools/bench-cloud.sh; the secret comes from NBGW_CLOUD_SECRET.
@main
struct CloudLoad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nbgw-cloud-load",
        abstract: "Load nbgw-cloud with signed binds (a pairing token, then the bind) and report rate and latency."
    )

    @Option(help: "Node base URLs, comma-separated; workers take them in turn.")
    var urls: String

    @Option(help: "The gateway's client id (the secret: NBGW_CLOUD_SECRET).")
    var clientID: String

    @Option(help: "Concurrent workers.")
    var concurrency = 16

    @Option(help: "How long to run, in seconds.")
    var seconds = 10.0

    @Option(help: "Binds a second for an open-loop run (0: closed loop, as fast as answered).")
    var rate = 0.0

    @Option(help: "Devices bd0000001… to pick from at random (registered beforehand).")
    var devices = 200_000

    func run() async throws {
        guard let secret = ProcessInfo.processInfo.environment["NBGW_CLOUD_SECRET"] else {
            throw ValidationError("set NBGW_CLOUD_SECRET to the gateway's secret")
        }
        let signer = TuyaSigner(clientID: clientID, secret: secret)
        let bases = urls.split(separator: ",").map(String.init)
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: concurrency)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            try await measure(client, signer: signer, bases: bases)
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    func measure(_ client: HTTPClient, signer: TuyaSigner, bases: [String]) async throws {
        var tokens: [String] = []
        for base in bases {
            tokens.append(try await Self.accessToken(client, base: base, signer: signer))
        }
        let start = ContinuousClock.now
        let end = start.advanced(by: .milliseconds(Int(seconds * 1000)))
        let interval: Duration? = rate > 0 ? .nanoseconds(Int64(1e9 / rate)) : nil
        let results = try await withThrowingTaskGroup(of: WorkerResult.self) { group in
            for worker in 0..<concurrency {
                let base = bases[worker % bases.count]
                let token = tokens[worker % bases.count]
                group.addTask {
                    var result = WorkerResult()
                    var index = 0
                    while true {
                        let scheduled: ContinuousClock.Instant
                        if let interval {
                            scheduled = start.advanced(by: interval * (index * concurrency + worker))
                            index += 1
                            if scheduled >= end { break }
                            if scheduled > .now { try await Task.sleep(until: scheduled, clock: .continuous) }
                        } else {
                            scheduled = .now
                            if scheduled >= end { break }
                        }
                        let device = String(format: "bd%07d", Int.random(in: 1...devices))
                        let home = "h\(worker)"
                        let account = "u\(worker)"
                        do {
                            let pairing = try await Self.call(
                                client, base: base, signer: signer, accessToken: token,
                                path: CloudAPI.pairingTokenPath,
                                body: #"{"pairing_type":"NB","asset_id":"\#(home)","uid":"\#(account)"}"#
                            )
                            guard let pairingToken = ((pairing["result"] as? [String: Any])?["token"]) as? String else {
                                result.errors += 1
                                continue
                            }
                            let bind = try await Self.call(
                                client, base: base, signer: signer, accessToken: token,
                                path: CloudAPI.bindPath,
                                body: #"{"device_id":"\#(device)","asset_id":"\#(home)","uid":"\#(account)","token":"\#(pairingToken)"}"#
                            )
                            if bind["success"] as? Bool == true {
                                result.bound += 1
                            } else if (bind["code"] as? Int) == TuyaErrorCode.deviceAlreadyBound {
                                result.conflicts += 1
                            } else {
                                result.errors += 1
                            }
                            result.latencies.append(scheduled.duration(to: .now))
                        } catch {
                            result.errors += 1
                        }
                    }
                    return result
                }
            }
            var all = WorkerResult()
            for try await result in group { all.merge(result) }
            return all
        }
        let elapsed = start.duration(to: .now)
        let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let sorted = results.latencies.sorted()
        func percentile(_ p: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            let value = sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
            return Double(value.components.seconds) * 1000 + Double(value.components.attoseconds) / 1e15
        }
        let completed = results.bound + results.conflicts
        let report: [String: Any] = [
            "binds": completed, "bound": results.bound, "conflicts": results.conflicts, "errors": results.errors,
            "seconds": (wall * 100).rounded() / 100, "binds_per_s": (Double(completed) / wall * 10).rounded() / 10,
            "p50_ms": (percentile(0.5) * 100).rounded() / 100, "p99_ms": (percentile(0.99) * 100).rounded() / 100,
            "concurrency": concurrency, "rate": rate,
        ]
        let data = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
        print(String(decoding: data, as: UTF8.self))
    }

    struct WorkerResult: Sendable {
        var bound = 0
        var conflicts = 0
        var errors = 0
        var latencies: [Duration] = []

        mutating func merge(_ other: WorkerResult) {
            bound += other.bound
            conflicts += other.conflicts
            errors += other.errors
            latencies += other.latencies
        }
    }

    static func accessToken(_ client: HTTPClient, base: String, signer: TuyaSigner) async throws -> String {
        let answer = try await send(client, base: base, signer: signer, accessToken: nil, method: .GET, path: CloudAPI.tokenPath, query: "grant_type=1", body: nil)
        guard let token = (answer["result"] as? [String: Any])?["access_token"] as? String else {
            throw ValidationError("no access token from \(base): \(answer)")
        }
        return token
    }

    static func call(
        _ client: HTTPClient,
        base: String,
        signer: TuyaSigner,
        accessToken: String,
        path: String,
        body: String
    ) async throws -> [String: Any] {
        try await send(client, base: base, signer: signer, accessToken: accessToken, method: .POST, path: path, query: nil, body: body)
    }

    static func send(
        _ client: HTTPClient,
        base: String,
        signer: TuyaSigner,
        accessToken: String?,
        method: HTTPMethod,
        path: String,
        query: String?,
        body: String?
    ) async throws -> [String: Any] {
        let bytes = Array((body ?? "").utf8)
        let items = (query ?? "").split(separator: "&").map { item -> (name: String, value: String) in
            let parts = item.split(separator: "=", maxSplits: 1)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
        var extra: [(name: String, value: String)] = []
        if body != nil { extra.append(("Idempotency-Key", "bench-" + TuyaSigner.makeNonce())) }
        let headers = signer.headers(
            method: method.rawValue,
            url: TuyaSigner.canonicalURL(path: path, query: items),
            body: bytes,
            accessToken: accessToken,
            t: Int64((Date().timeIntervalSince1970 * 1000).rounded()),
            nonce: TuyaSigner.makeNonce(),
            extraSignedHeaders: extra
        )
        var request = HTTPClientRequest(url: base + path + (query.map { "?" + $0 } ?? ""))
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await client.execute(request, timeout: .seconds(30))
        let data = try await response.body.collect(upTo: 1 << 20)
        return (try JSONSerialization.jsonObject(with: Data(data.readableBytesView)) as? [String: Any]) ?? [:]
    }
}
