import Synchronization

/// A decorator that records and forwards every byte going through another ``ATTransport``.
///
/// Use it to log raw AT traffic (at trace level: it can contain IMSIs and ICCIDs) or to capture a
/// transcript from a real modem for a regression test:
///
/// ```swift
/// let port = try SerialPortTransport(path: "/dev/ttyUSB2")
/// let traced = TracingTransport(port) { event in logger.trace("\(event)") }
/// let session = ATSession(transport: traced)
/// ```
///
/// The last ``capacity`` events are kept in memory (``events``); older ones are dropped.
public final class TracingTransport: ATTransport {
    private struct Recording {
        var events: [ATTraceEvent] = []
        var droppedEventCount = 0
    }

    /// The decorated transport.
    public let base: any ATTransport
    /// How many events ``events`` keeps.
    public let capacity: Int
    private let sink: (@Sendable (ATTraceEvent) -> Void)?
    private let recording = Mutex(Recording())

    /// Wraps `base`. `sink`, if given, is called synchronously for every event, in order per
    /// direction, on whatever task performed the read or write; keep it cheap.
    public init(_ base: any ATTransport, capacity: Int = 1000, sink: (@Sendable (ATTraceEvent) -> Void)? = nil) {
        self.base = base
        self.capacity = max(0, capacity)
        self.sink = sink
    }

    public var portName: String { base.portName }

    /// The recorded events, oldest first.
    public var events: [ATTraceEvent] { recording.withLock { $0.events } }

    /// Events that no longer fit into ``capacity``.
    public var droppedEventCount: Int { recording.withLock { $0.droppedEventCount } }

    /// Forgets the recorded events.
    public func clear() {
        recording.withLock { $0 = Recording() }
    }

    public func read() async throws -> [UInt8] {
        do {
            let bytes = try await base.read()
            record(ATTraceEvent(direction: .received, bytes: bytes))
            return bytes
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            record(ATTraceEvent(direction: .closed, bytes: [], note: "\(error)"))
            throw error
        }
    }

    public func write(_ bytes: [UInt8]) async throws {
        // Recorded before the write so the trace shows what we tried to send even if it fails.
        record(ATTraceEvent(direction: .sent, bytes: bytes))
        try await base.write(bytes)
    }

    public func close() async {
        await base.close()
    }

    private func record(_ event: ATTraceEvent) {
        recording.withLock { recording in
            guard capacity > 0 else {
                recording.droppedEventCount += 1
                return
            }
            if recording.events.count == capacity {
                recording.events.removeFirst()
                recording.droppedEventCount += 1
            }
            recording.events.append(event)
        }
        sink?(event)
    }
}
