import Cloud
import Foundation
import NBGWCore
import Testing
import TestPostgres
import TuyaCloud

#if canImport(Glibc)
import Glibc
#endif

/// The node's listener under clients that connect and never speak: a connection cap that keeps
/// the rest waiting in the backlog, and an idle timeout that closes them.
@Suite("Fleet cloud: a node's listener")
struct FleetListenerTests {
    /// A TCP connection to the node that sends nothing.
    final class Silent: @unchecked Sendable {
        let descriptor: Int32

        init(port: Int) throws {
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else { throw TestPostgresError("connect: \(String(cString: strerror(errno)))") }
        }

        /// True when the node closes the connection within `seconds` (a read sees EOF).
        func closedByPeer(within seconds: Int) -> Bool {
            var timeout = timeval(tv_sec: seconds, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var byte: UInt8 = 0
            return read(descriptor, &byte, 1) == 0
        }

        deinit { close(descriptor) }
    }

    static func modules(_ port: Int, _ credentials: CloudCredentials) async -> Result<Int, NBGWError> {
        do {
            var configuration = try CloudConfiguration(
                baseURL: "http://127.0.0.1:\(port)",
                credentials: credentials,
                connectTimeout: .seconds(2),
                requestTimeout: .seconds(2)
            )
            configuration.retryPolicy = RetryPolicy(maxAttempts: 1)
            let cloud = HTTPCloud(configuration: configuration)
            let result: Result<Int, NBGWError>
            do {
                result = .success(try await cloud.cloudModules().count)
            } catch {
                result = .failure(error)
            }
            await cloud.shutdown()
            return result
        } catch {
            return .failure(NBGWError(.internalError, "\(error)"))
        }
    }

    @Test("Past --max-connections a node accepts no more until one closes; the waiting client is then served")
    func nodesCapTheirConnections() async throws {
        try await FleetFixture.with(nodes: 0) { fleet in
            let node = try await fleet.startNode(["--tenant-rate", "0", "--max-connections", "4"])
            let credentials = try await fleet.addGateway("gw")
            #expect(await Self.modules(node.port, credentials) == .success(0))
            var silent = try (0..<4).map { _ in try Silent(port: node.port) }
            try await Task.sleep(for: .milliseconds(300))
            let refused = await Self.modules(node.port, credentials)
            #expect(refused != .success(0), "a fifth connection was served past the cap of 4")
            silent.removeFirst()
            var served = false
            for _ in 0..<20 where !served {
                served = await Self.modules(node.port, credentials) == .success(0)
            }
            #expect(served, "once a connection closed, a client was served again")
            _ = silent
        }
    }

    @Test("A connection that sends no request is closed after --idle-timeout")
    func nodesCloseIdleConnections() async throws {
        try await FleetFixture.with(nodes: 0) { fleet in
            let node = try await fleet.startNode(["--tenant-rate", "0", "--idle-timeout", "1"])
            let silent = try Silent(port: node.port)
            let closed = await TestPostgres.offPool { silent.closedByPeer(within: 5) }
            #expect(closed, "an idle connection stayed open 5 s past a 1 s idle timeout")
        }
    }
}
