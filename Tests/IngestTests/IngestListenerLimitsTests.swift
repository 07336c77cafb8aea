import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing

@testable import Ingest

/// What a client can hold of the listener (security review F1: 1,100 idle connections took every
/// descriptor of the daemon). Real server on loopback, raw sockets.
@Suite("the ingest listener under hostile load")
struct IngestListenerLimitsTests {
    func configuration(
        _ fixture: IngestFixture,
        _ change: (inout IngestConnectionLimits) -> Void
    ) -> IngestConfiguration {
        var configuration = fixture.configuration()
        change(&configuration.connectionLimits)
        return configuration
    }

    func noop(_ fixture: IngestFixture) -> String {
        "POST /v1/noop HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(fixture.key)\r\nContent-Length: 0\r\n"
            + "Connection: close\r\n\r\n"
    }

    @Test("a connection that sends nothing is closed at the idle timeout")
    func idleConnectionsClose() async throws {
        let fixture = try await IngestFixture(devices: 0)
        let closed = try await fixture.withServer(configuration(fixture) { $0.idleTimeout = .seconds(1) }) { client in
            let idle = try RawConnection(port: try #require(client.port))
            return await idle.readUntilClosed(timeout: .seconds(10))
        }
        #expect(closed == "")
    }

    @Test("a head trickled byte by byte is cut at the idle timeout too")
    func trickledHeadIsCut() async throws {
        let fixture = try await IngestFixture(devices: 0)
        let closed = try await fixture.withServer(configuration(fixture) { $0.idleTimeout = .seconds(1) }) { client in
            let slow = try RawConnection(port: try #require(client.port))
            let trickle = Task {
                for byte in "GET /v1/modems HTTP/1.1\r\nHost: x\r\nX-Pad: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" {
                    slow.send(String(byte))
                    try await Task.sleep(for: .milliseconds(200))
                }
            }
            defer { trickle.cancel() }
            return await slow.readUntilClosed(timeout: .seconds(5))
        }
        #expect(closed != nil)
    }

    @Test("one address past its cap is closed at once; another address is served meanwhile")
    func perClientCap() async throws {
        let fixture = try await IngestFixture(devices: 0)
        let (refused, served) = try await fixture.withServer(configuration(fixture) { $0.maxConnectionsPerClient = 3 })
        {
            client in
            let port = try #require(client.port)
            let held = try (0..<3).map { _ in try RawConnection(port: port, source: "127.0.0.3") }
            // The three are accepted and counted before the fourth arrives.
            for connection in held { connection.send("GET") }
            try await Task.sleep(for: .milliseconds(300))
            let fourth = try RawConnection(port: port, source: "127.0.0.3")
            let refused = await fourth.readUntilClosed(timeout: .seconds(5))
            let other = try RawConnection(port: port, source: "127.0.0.4")
            other.send(noop(fixture))
            let served = await other.readUntilClosed(timeout: .seconds(5))
            withExtendedLifetime(held) {}
            return (refused, served)
        }
        #expect(refused == "")
        #expect(served?.hasPrefix("HTTP/1.1 200") == true)
    }

    @Test(
        "past the listener's cap, with every connection in the middle of a request, nothing more is accepted until one closes"
    )
    func listenerCap() async throws {
        let fixture = try await IngestFixture(devices: 0)
        var configuration = configuration(fixture) {
            $0.maxConnections = 16
            $0.idleTimeout = .seconds(60)
        }
        let table = ListenerConnectionTable(
            limitPerClient: 64,
            evictAbove: configuration.connectionLimits.evictIdleAbove
        )
        configuration.connectionTable = table
        let (whileFull, afterwards) = try await fixture.withRunningApplication(configuration) { port in
            // Each sends a bind's head and holds its body back: a request in flight, never closed
            // to make room. One at a time, each busy before the next, so none is idle when the
            // listener fills (an idle one would make room).
            var held: [RawConnection] = []
            for index in 0..<16 {
                let connection = try RawConnection(port: port, source: "127.0.1.\(index + 1)")
                connection.send(
                    "POST /v1/bindings HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(fixture.key)\r\n"
                        + "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
                )
                held.append(connection)
                let deadline = ContinuousClock.now + .seconds(10)
                while table.busy < index + 1, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(10))
                }
            }
            #expect(table.busy == 16)
            held += try (16..<24).map { index in
                let connection = try RawConnection(port: port, source: "127.0.1.\(index + 1)")
                connection.send(
                    "POST /v1/bindings HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(fixture.key)\r\n"
                        + "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
                )
                return connection
            }
            try await Task.sleep(for: .milliseconds(500))
            let waiting = try RawConnection(port: port, source: "127.0.2.1")
            waiting.send(noop(fixture))
            let whileFull = await waiting.readUntilClosed(timeout: .seconds(2))
            held.removeAll()
            let afterwards = await waiting.readUntilClosed(timeout: .seconds(10))
            return (whileFull, afterwards)
        }
        #expect(whileFull == nil)
        #expect(afterwards?.hasPrefix("HTTP/1.1 200") == true)
    }

    @Test("idle connections from a hundred addresses filling the listener do not keep a request from being served")
    func idleFloodFromManyAddresses() async throws {
        let fixture = try await IngestFixture(devices: 0)
        let configuration = configuration(fixture) {
            $0.maxConnections = 32
            $0.idleTimeout = .seconds(60)
        }
        let answers = try await fixture.withRunningApplication(configuration) { port in
            // Far more than the listener holds, from addresses under the per-client cap.
            var held = try (0..<96).map { index in try RawConnection(port: port, source: "127.0.3.\(index + 1)") }
            try await Task.sleep(for: .milliseconds(300))
            var answers: [String?] = []
            for index in 0..<3 {
                let client = try RawConnection(port: port, source: "127.0.4.\(index + 1)")
                client.send(noop(fixture))
                answers.append(await client.readUntilClosed(timeout: .seconds(5)))
                held.append(try RawConnection(port: port, source: "127.0.5.\(index + 1)"))
            }
            withExtendedLifetime(held) {}
            return answers
        }
        #expect(answers.allSatisfy { $0?.hasPrefix("HTTP/1.1 200") == true }, "\(answers)")
    }

    @Test("the daemon keeps at most half its descriptor limit for the listener's clients")
    func cappedToDescriptors() {
        let limits = IngestConnectionLimits(maxConnections: 512, maxConnectionsPerClient: 64)
        #expect(limits.capped(toDescriptorLimit: 4096).maxConnections == 512)
        #expect(limits.capped(toDescriptorLimit: 1024).maxConnections == 512)
        #expect(limits.capped(toDescriptorLimit: 256).maxConnections == 128)
        #expect(limits.capped(toDescriptorLimit: 20).maxConnections == 16)
        #expect(limits.capped(toDescriptorLimit: 20).maxConnectionsPerClient == 16)
    }
}

/// The connection guard on an embedded channel, whose clock the test moves.
@Suite("the ingest connection guard")
struct IngestConnectionGuardTests {
    func channel(
        _ limits: IngestConnectionLimits = IngestConnectionLimits(),
        table: ListenerConnectionTable = ListenerConnectionTable(limitPerClient: 64, evictAbove: 448),
        from address: String = "192.0.2.1",
        loop: EmbeddedEventLoop = EmbeddedEventLoop()
    ) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(loop: loop)
        try channel.pipeline.syncOperations.addHandler(
            IngestConnectionGuard(limits: limits, table: table, logger: Logger(label: "test"))
        )
        try channel.connect(to: SocketAddress(ipAddress: address, port: 40000)).wait()
        return channel
    }

    static let head = HTTPRequestPart.head(HTTPRequest(method: .post, scheme: nil, authority: "x", path: "/batch"))

    @Test("a body slower than the minimum rate closes the connection after the grace period")
    func slowBodyIsCut() throws {
        let channel = try channel(IngestConnectionLimits(minBodyBytesPerSecond: 1024, bodyGrace: .seconds(30)))
        try channel.writeInbound(Self.head)
        try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(repeating: 0, count: 1000)))
        channel.embeddedEventLoop.advanceTime(by: .seconds(30))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        #expect(!channel.isActive)
    }

    @Test("a body at the minimum rate, and a finished request, keep the connection")
    func steadyBodyStays() throws {
        let channel = try channel(IngestConnectionLimits(minBodyBytesPerSecond: 1024, bodyGrace: .seconds(30)))
        try channel.writeInbound(Self.head)
        for _ in 0..<24 {
            try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(repeating: 0, count: 5 * 1100)))
            channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        }
        #expect(channel.isActive)
        try channel.writeInbound(HTTPRequestPart.end(nil))
        channel.embeddedEventLoop.advanceTime(by: .seconds(600))
        #expect(channel.isActive)
        _ = try channel.finish()
    }

    @Test("a client that stops reading its answer is dropped after the stall timeout, not before")
    func stalledReaderIsDropped() throws {
        let channel = try channel(IngestConnectionLimits(writeStallTimeout: .seconds(30)))
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        channel.embeddedEventLoop.advanceTime(by: .seconds(29))
        #expect(channel.isActive)
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        channel.embeddedEventLoop.advanceTime(by: .seconds(60))
        #expect(channel.isActive)
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        channel.embeddedEventLoop.advanceTime(by: .seconds(30))
        #expect(!channel.isActive)
    }

    @Test("connections over an address's cap close at once; closing one frees its place; proxies are not counted")
    func perClientCounting() throws {
        let table = ListenerConnectionTable(limitPerClient: 2, evictAbove: 100, exempt: ["192.0.2.9"])
        let first = try channel(table: table)
        let second = try channel(table: table)
        let third = try channel(table: table)
        #expect(first.isActive && second.isActive)
        #expect(!third.isActive)
        #expect(table.count(of: "192.0.2.1") == 2)
        #expect(table.refused == 1)
        _ = try first.finish()
        #expect(table.count(of: "192.0.2.1") == 1)
        #expect(try channel(table: table).isActive)
        let proxied = try (0..<5).map { _ in try channel(table: table, from: "192.0.2.9") }
        #expect(proxied.allSatisfy { $0.isActive })
    }

    @Test("when the listener fills up, the longest-idle connections make room; one with a request in flight never does")
    func idleConnectionsMakeRoom() throws {
        let loop = EmbeddedEventLoop()
        let table = ListenerConnectionTable(limitPerClient: 64, evictAbove: 2)
        let oldest = try channel(table: table, from: "192.0.2.1", loop: loop)
        loop.advanceTime(by: .seconds(1))
        let working = try channel(table: table, from: "192.0.2.2", loop: loop)
        try working.writeInbound(IngestConnectionGuardTests.head)
        loop.advanceTime(by: .seconds(1))
        let newer = try channel(table: table, from: "192.0.2.3", loop: loop)
        #expect(!oldest.isActive, "the longest-idle connection was closed")
        #expect(working.isActive && newer.isActive)
        loop.advanceTime(by: .seconds(1))
        let newest = try channel(table: table, from: "192.0.2.4", loop: loop)
        #expect(!newer.isActive, "the next longest-idle one goes")
        #expect(working.isActive, "a request in flight is never closed to make room")
        #expect(newest.isActive)
        #expect(table.evicted == 2)
    }
}
