import Synchronization

/// A decorator that watches the bytes on their way to the session for boot markers
/// (``ModemDialect/allBootMarkers``), so the probe can tell that a module rebooted while a command
/// was in flight.
///
/// Why a transport decorator rather than the session's URC stream: the decorator sees the bytes
/// *before* the session does, so by the time a command's result reaches the probe, a reboot
/// announced ahead of it has already been counted. A URC consumer task gives no such ordering.
final class RebootWatchingTransport: ATTransport {
    private struct State {
        var framer = ATLineFramer(prompts: [])
        var generation = 0
        var lastMarker: String?
    }

    let base: any ATTransport
    private let markers: [ATURCPattern]
    private let state = Mutex(State())

    init(_ base: any ATTransport, markers: [ATURCPattern] = ModemDialect.allBootMarkers) {
        self.base = base
        self.markers = markers
    }

    var portName: String { base.portName }

    /// Incremented for every boot marker seen.
    var generation: Int { state.withLock { $0.generation } }

    /// The last boot marker line seen.
    var lastMarker: String? { state.withLock { $0.lastMarker } }

    func read() async throws -> [UInt8] {
        let bytes = try await base.read()
        state.withLock { state in
            for event in state.framer.feed(bytes) {
                guard case .line(let line) = event else { continue }
                let text = line.text.trimmingSpaces()
                if markers.contains(where: { $0.matches(text) }) {
                    state.generation += 1
                    state.lastMarker = text
                }
            }
        }
        return bytes
    }

    func write(_ bytes: [UInt8]) async throws {
        try await base.write(bytes)
    }

    func close() async {
        await base.close()
    }
}
