import Synchronization

@testable import ATKit

/// An in-memory modem: ``transport`` is what the session talks to; the test plays the modem through
/// ``reply(_:)``, ``nextCommand()`` and ``hangUp()``. Like warthog618's mock, it is not a real
/// modem: it answers only what the test tells it to.
final class FakeModem: Sendable {
    /// The host side.
    final class Transport: ATTransport {
        let portName: String
        fileprivate let toHost = ByteQueue()
        fileprivate let toModem = ByteQueue()
        fileprivate let closeCount = Mutex(0)

        init(portName: String) {
            self.portName = portName
        }

        func read() async throws -> [UInt8] {
            try await toHost.take(ByteQueue.everything)
        }

        func write(_ bytes: [UInt8]) async throws {
            if toModem.isFinished {
                throw ATTransportError.closed(port: portName, reason: .endOfFile)
            }
            toModem.append(bytes)
        }

        func close() async {
            closeCount.withLock { $0 += 1 }
            toHost.finish(throwing: ATTransportError.closed(port: portName, reason: .closedLocally))
            toModem.finish(throwing: ATTransportError.closed(port: portName, reason: .closedLocally))
        }
    }

    let transport: Transport

    init(portName: String = "/dev/fake0") {
        transport = Transport(portName: portName)
    }

    /// Sends text to the host (use `\r\n` explicitly).
    func reply(_ text: String) {
        transport.toHost.append(Array(text.utf8))
    }

    /// Sends raw bytes to the host.
    func reply(bytes: [UInt8]) {
        transport.toHost.append(bytes)
    }

    /// Waits for the next CR-terminated command line the host wrote.
    func nextCommand() async throws -> String {
        String(decoding: try await transport.toModem.take(ByteQueue.line), as: UTF8.self)
    }

    /// Waits for `count` raw bytes from the host (a payload after a prompt).
    func nextBytes(_ count: Int) async throws -> [UInt8] {
        try await transport.toModem.take(ByteQueue.bytes(count))
    }

    /// Bytes the host wrote that the test has not taken yet.
    var unreadHostBytes: Int { transport.toModem.bufferedCount }

    /// How often the host called `close()`.
    var closeCount: Int { transport.closeCount.withLock { $0 } }

    /// Simulates unplugging: the host's reads end with EOF.
    func hangUp() {
        transport.toHost.finish(throwing: ATTransportError.closed(port: transport.portName, reason: .endOfFile))
        transport.toModem.finish(throwing: ATTransportError.closed(port: transport.portName, reason: .endOfFile))
    }
}
