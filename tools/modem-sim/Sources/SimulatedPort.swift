#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One pty and the module behind it, as the loop thread sees them. Confined to the loop thread.
final class SimulatedPort: SimulatedModemHost {
    let index: Int
    let terminal: PseudoTerminalPort
    unowned let loop: SimulatorLoop
    private(set) var modem: SimulatedModem!
    /// Bytes the pty would not take yet (the host is not reading); bounded.
    private(set) var outbox: [UInt8] = []
    private(set) var isOpen = true

    /// What a UART FIFO plus driver buffer would hold before dropping: 64 KiB.
    static let outboxLimit = 1 << 16

    init(
        index: Int,
        configuration: SimulatedPortConfiguration,
        loop: SimulatorLoop,
        seed: UInt64,
        terminal: PseudoTerminalPort? = nil
    ) throws(SimulatorConfigurationError) {
        self.index = index
        self.loop = loop
        if let terminal {
            self.terminal = terminal
        } else {
            self.terminal = try PseudoTerminalPort(nominalBaud: configuration.family.nominalBaud)
        }
        self.modem = SimulatedModem(
            index: index,
            configuration: configuration,
            host: self,
            timeScale: loop.timeScale,
            seed: seed
        )
    }

    var now: ContinuousClock.Instant { loop.now }

    func schedule(at deadline: ContinuousClock.Instant, _ action: @escaping () -> Void) {
        loop.schedule(at: deadline) { [weak self] in
            guard let self, self.isOpen else { return }
            action()
        }
    }

    func send(_ bytes: [UInt8]) {
        guard isOpen, !bytes.isEmpty else { return }
        if outbox.isEmpty {
            let written = bytes.withUnsafeBytes { write(terminal.master, $0.baseAddress, $0.count) }
            if written == bytes.count { return }
            outbox = Array(bytes.dropFirst(max(0, written)))
        } else {
            outbox += bytes
        }
        if outbox.count > Self.outboxLimit {
            outbox.removeFirst(outbox.count - Self.outboxLimit)
        }
    }

    /// Writes what the pty takes of the outbox (on POLLOUT).
    func flush() {
        guard isOpen, !outbox.isEmpty else { return }
        let written = outbox.withUnsafeBytes { write(terminal.master, $0.baseAddress, $0.count) }
        if written > 0 { outbox.removeFirst(written) }
    }

    /// Reads everything the host wrote and feeds the module.
    func readInput() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while isOpen {
            let count = buffer.withUnsafeMutableBytes { read(terminal.master, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            modem.receive(Array(buffer[0..<count]))
        }
    }

    func hangUp() {
        guard isOpen else { return }
        isOpen = false
        outbox.removeAll()
        terminal.close()
        loop.portClosed(self)
    }

    func currentSpeed() -> Int? {
        terminal.currentSpeed()
    }

    func publish(_ statistics: SimulatedPortStatistics) {
        loop.publish(statistics)
    }
}
