import ATKit

/// An ``ATTransport`` decorator that shows every byte to an ``ATTrafficMeter``.
final class MeteredTransport: ATTransport {
    let base: any ATTransport
    let meter: ATTrafficMeter

    init(_ base: any ATTransport, meter: ATTrafficMeter) {
        self.base = base
        self.meter = meter
    }

    var portName: String { base.portName }

    func read() async throws -> [UInt8] {
        let bytes = try await base.read()
        meter.received(bytes)
        return bytes
    }

    func write(_ bytes: [UInt8]) async throws {
        meter.sent(bytes)
        try await base.write(bytes)
    }

    func close() async {
        await base.close()
    }
}
