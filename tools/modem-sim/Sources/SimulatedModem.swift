import Foundation

/// The module behind one simulated port: an AT interpreter with the family's quirks, a small
/// network (searching → registered or denied, PSM), boot banners and the faults it was told to
/// show.
///
/// Thread confinement: created, fed and scheduled only on the simulator's loop thread (see
/// ``SimulatorLoop``); it is never shared, so it needs no locks.
final class SimulatedModem {
    /// A final result code, rendered according to `+CMEE`.
    enum Final {
        case ok
        case error
        case cme(Int)
        /// No final result now (the command finishes later, e.g. `AT+NRB`).
        case none
    }

    /// What a command produces.
    struct Reply {
        var lines: [String] = []
        var final: Final = .ok
        /// State changes, applied as soon as the command is executed (so that a later command on
        /// the same line, `AT+COPS=3,2;+COPS?`, sees them).
        var effect: (() -> Void)?
        /// Runs right after the reply is written (a reboot after its `OK`).
        var after: (() -> Void)?

        static var ok: Reply { Reply() }
        static var error: Reply { Reply(final: .error) }
        static func cme(_ code: Int) -> Reply { Reply(final: .cme(code)) }
        static func lines(_ lines: [String]) -> Reply { Reply(lines: lines) }
    }

    let index: Int
    let configuration: SimulatedPortConfiguration
    var family: SimulatedFamily { configuration.family }
    unowned let host: any SimulatedModemHost
    let timeScale: Double
    var random: SplitMix64

    // MARK: AT state (reset by a reboot)

    var echo = true
    var errorMode = 0
    var functionality: Int
    var ceregLevel = 0
    var cregLevel = 0
    var cgregLevel = 0
    var operatorFormat = 0
    var powerSavingReports = false
    var requestedPowerSaving: (periodicTAU: String, activeTime: String)?
    var edrx: [Int: String] = [:]
    var contexts: [Int: (type: String, apn: String)] = [:]

    // MARK: Network and power state

    var stat = 0
    /// The network's verdict from now on (the configuration's, until an event changes it).
    var scenario: SimulatedPortConfiguration.Registration
    /// The SIM as it is now (the configuration's, until an event changes it).
    var sim: SimulatedPortConfiguration.SIM
    var pin: String
    var pinVerified = false
    var pinAttemptsLeft = 3
    var registrationEpoch = 0
    var activityEpoch = 0
    var inPowerSaving = false
    var booting = false
    /// Auto-baud: the speed the UART trained on; nil until the first `AT`.
    var trainedSpeed: Int?

    // MARK: Line input

    var lineBuffer: [UInt8] = []
    var discardingTrainingLine = false
    var answerQueueEnd: ContinuousClock.Instant
    /// When the bytes being handled were read: every line of one read arrived together, however
    /// long handling the lines before it took.
    var receivedAt: ContinuousClock.Instant

    // MARK: Faults

    var garbage = false
    var urcInResponse = false
    var errorsOnly = false
    var neverAnswered: [String] = []
    var rebootCountdown: Int?
    var hangUpCountdown: Int?
    var garbageEpoch = 0

    var statistics: SimulatedPortStatistics

    init(
        index: Int,
        configuration: SimulatedPortConfiguration,
        host: any SimulatedModemHost,
        timeScale: Double,
        seed: UInt64
    ) {
        self.index = index
        self.configuration = configuration
        self.host = host
        self.timeScale = timeScale
        self.random = SplitMix64(seed: seed &+ UInt64(index) &* 7919)
        self.functionality = configuration.family.initialFunctionality
        self.scenario = configuration.registration
        self.sim = configuration.sim
        self.pin = configuration.pin
        self.pinAttemptsLeft = configuration.pinAttempts
        self.answerQueueEnd = host.now
        self.receivedAt = host.now
        self.statistics = SimulatedPortStatistics(index: index)
    }

    /// Powers the module on: the banner goes out at once (into the void unless a host already
    /// holds the port: opening a TTY flushes what was buffered), then the network starts.
    func powerOn() {
        for fault in configuration.faults {
            apply(fault)
        }
        switch family.kind {
        case .modem: boot(cause: "SECURITY_PMU_POWER_ON_RESET")
        case .nmea: streamNMEA()
        case .silent: break
        }
    }

    /// `duration` scaled by the simulator's time factor.
    func scaled(_ duration: Duration) -> Duration {
        duration * timeScale
    }

    func after(_ duration: Duration, _ action: @escaping () -> Void) {
        host.schedule(at: host.now + scaled(duration), action)
    }

    // MARK: Faults

    /// Starts showing `fault`.
    func apply(_ fault: SimulatedFault) {
        switch fault {
        case .garbage:
            garbage = true
            garbageEpoch += 1
            scheduleIdleGarbage(epoch: garbageEpoch)
        case .urcInResponse: urcInResponse = true
        case .noAnswer(let prefix): neverAnswered.append(prefix)
        case .errors: errorsOnly = true
        case .reboot(let count):
            if count == 0 { reboot(cause: "SECURITY_WATCHDOG") } else { rebootCountdown = count }
        case .hangUp(let count):
            if count == 0 { host.hangUp() } else { hangUpCountdown = count }
        }
    }

    private func scheduleIdleGarbage(epoch: Int) {
        after(.milliseconds(200)) { [self] in
            guard garbage, epoch == garbageEpoch else { return }
            if !booting { send(noise() + Array("\r\n".utf8)) }
            scheduleIdleGarbage(epoch: epoch)
        }
    }

    /// 3–12 bytes of line noise: high bytes and NULs, which no decoder turns into text.
    func noise() -> [UInt8] {
        (0..<Int.random(in: 3...12, using: &random)).map { _ in
            Bool.random(using: &random) ? 0x00 : UInt8.random(in: 0x80...0xFE, using: &random)
        }
    }

    func send(_ bytes: [UInt8]) {
        statistics.bytesSent += bytes.count
        // A UART at the wrong speed: whatever the module sends reaches the host as noise.
        if case .fixed(let wanted) = family.baud, let speed = host.currentSpeed(), speed != wanted {
            host.send(Array(noise().prefix(max(1, bytes.count / 4))))
            return
        }
        host.send(bytes)
    }

    func sendLine(_ line: String) {
        send(Array("\r\n\(line)\r\n".utf8))
    }

    func publish() {
        host.publish(statistics)
    }

    // MARK: Input

    /// Bytes the host wrote.
    func receive(_ bytes: [UInt8]) {
        statistics.bytesReceived += bytes.count
        receivedAt = host.now
        defer { publish() }
        guard family.kind == .modem, !booting else { return }
        let speed = host.currentSpeed()
        switch family.baud {
        case .fixed(let wanted):
            if let speed, speed != wanted {
                // At the wrong speed the UART sees framing errors: no command, only noise back
                // (``send(_:)`` garbles everything while the speeds differ).
                send(noise())
                lineBuffer.removeAll()
                return
            }
        case .autoBaud:
            if trainedSpeed == nil || trainedSpeed != speed {
                trainedSpeed = speed
                discardingTrainingLine = true
            }
        case .any:
            break
        }
        var echoed: [UInt8] = []
        for byte in bytes {
            if discardingTrainingLine {
                // The training "AT" is consumed by the baud-rate detector: no echo, no answer.
                if byte == 0x0D { discardingTrainingLine = false }
                continue
            }
            if echo { echoed.append(byte) }
            switch byte {
            case 0x0D:
                if !echoed.isEmpty {
                    send(echoed)
                    echoed.removeAll()
                }
                let line = String(decoding: lineBuffer, as: UTF8.self)
                lineBuffer.removeAll()
                handle(line)
            case 0x0A:
                continue
            case 0x08, 0x7F:
                if !lineBuffer.isEmpty { lineBuffer.removeLast() }
            default:
                if lineBuffer.count < 1024 { lineBuffer.append(byte) }
            }
        }
        if !echoed.isEmpty { send(echoed) }
    }

    /// One command line (without CR).
    func handle(_ rawLine: String) {
        let line = rawLine.trimmingCharacters(in: .whitespaces)
        guard !line.isEmpty, !booting else { return }
        statistics.commands += 1
        // A command written before the previous one's answer went out: the host interleaved them.
        // Compared with the read's instant, not the clock now: on a busy machine handling the
        // first line of a read can outlast its (time-scaled, sub-millisecond) answer delay.
        if answerQueueEnd > receivedAt { statistics.overlappingCommands += 1 }
        if inPowerSaving {
            leavePowerSaving()
            // BC95's low-power UART loses the command that woke it.
            if family.sleepsInPowerSaving { return }
        }
        noteActivity()
        if let count = hangUpCountdown {
            if count <= 1 {
                hangUpCountdown = nil
                host.hangUp()
                return
            }
            hangUpCountdown = count - 1
        }
        if let count = rebootCountdown {
            if count <= 1 {
                rebootCountdown = nil
                reboot(cause: "SECURITY_WATCHDOG")
                return
            }
            rebootCountdown = count - 1
        }
        let upper = line.uppercased()
        if neverAnswered.contains(where: { upper.hasPrefix($0) }) { return }
        let reply: Reply = errorsOnly && upper != "AT" ? .error : execute(line)
        answer(reply, latency: family.latency.latency(for: upper))
    }

    /// Writes `reply` after its scripted latency, after any answer still queued.
    func answer(_ reply: Reply, latency: Duration) {
        let bytes = render(reply)
        let speed = Double(host.currentSpeed() ?? family.nominalBaud)
        let wire = Duration.seconds(Double(bytes.count * 10) / speed)
        let delay = scaled(latency + wire)
        let start = max(host.now, answerQueueEnd)
        let deadline = start + delay
        answerQueueEnd = deadline
        statistics.scriptedLatency += delay
        host.schedule(at: deadline) { [self] in
            guard !booting else { return }
            statistics.lateness += deadline.duration(to: host.now)
            send(bytes)
            reply.after?()
            publish()
        }
    }

    private func render(_ reply: Reply) -> [UInt8] {
        var text = ""
        if urcInResponse { text += "\r\n\(family.interleavedURC)\r\n" }
        for line in reply.lines { text += "\r\n\(line)\r\n" }
        if urcInResponse && !reply.lines.isEmpty { text += "\r\n\(family.interleavedURC)\r\n" }
        switch reply.final {
        case .ok: text += "\r\nOK\r\n"
        case .error: text += "\r\nERROR\r\n"
        case .cme(let code):
            switch errorMode {
            case 1: text += "\r\n+CME ERROR:\(family.colon == ":" ? "" : " ")\(code)\r\n"
            case 2: text += "\r\n+CME ERROR: \(Self.errorText[code] ?? "unknown")\r\n"
            default: text += "\r\nERROR\r\n"
            }
        case .none: break
        }
        return (garbage ? noise() + Array("\r\n".utf8) : []) + Array(text.utf8)
    }

    static let errorText = [
        3: "operation not allowed", 4: "operation not supported", 10: "SIM not inserted", 11: "SIM PIN required",
        12: "SIM PUK required", 13: "SIM failure", 14: "SIM busy", 16: "incorrect password",
        30: "no network service", 50: "incorrect parameters",
    ]
}
