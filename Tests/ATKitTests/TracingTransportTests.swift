import ATKit
import Testing

@Suite(.timeLimit(.minutes(1)))
struct TracingTransportTests {
    @Test func recordsAndForwardsBothDirectionsInOrder() async throws {
        let modem = FakeModem()
        let forwarded = EventRecorder<ATTraceEvent>()
        let traced = TracingTransport(modem.transport) { forwarded.record($0) }
        #expect(traced.portName == "/dev/fake0")

        try await traced.write(Array("AT+CGMI\r".utf8))
        #expect(try await modem.nextCommand() == "AT+CGMI")
        modem.reply("\r\nQuectel\r\nOK\r\n")
        #expect(try await traced.read() == Array("\r\nQuectel\r\nOK\r\n".utf8))
        modem.hangUp()
        await #expect(throws: ATTransportError.self) { try await traced.read() }

        let events = traced.events
        #expect(events.map(\.direction) == [.sent, .received, .closed])
        #expect(events.map(\.description).prefix(2) == [">> AT+CGMI\\r", "<< \\r\\nQuectel\\r\\nOK\\r\\n"])
        #expect(forwarded.events == events)
    }

    @Test func escapesNonPrintableBytes() {
        #expect(ATTraceEvent.escape([0x00, 0x41, 0xFF, 0x5C, 0x09]) == "\\x00A\\xFF\\\\\\t")
    }

    @Test func keepsOnlyTheNewestEventsUpToItsCapacity() async throws {
        let modem = FakeModem()
        let traced = TracingTransport(modem.transport, capacity: 2)
        for index in 0..<5 {
            try await traced.write(Array("AT+TEST=\(index)\r".utf8))
        }
        #expect(traced.events.map(\.escapedText) == ["AT+TEST=3\\r", "AT+TEST=4\\r"])
        #expect(traced.droppedEventCount == 3)
    }

    @Test func aSessionOverATracedTransportWorksUnchanged() async throws {
        let modem = FakeModem()
        let traced = TracingTransport(modem.transport)
        let session = ATSession(transport: traced, configuration: ATSessionConfiguration(guardTime: .zero))
        let task = Task { try await session.send("ATE0") }
        #expect(try await modem.nextCommand() == "ATE0")
        modem.reply("ATE0\r\r\nOK\r\n")
        #expect(try await task.value.final == .ok)
        #expect(traced.events.first?.bytes == Array("ATE0\r".utf8))
        await session.close()
    }
}
