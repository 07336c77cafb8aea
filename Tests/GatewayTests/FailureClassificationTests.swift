import ATKit
import Foundation
import NBGWCore
import Synchronization
import Testing

@testable import Gateway

/// What each failure the supervisor can meet becomes: its code, and whether the port is retried,
/// given up on as no modem, or gone.
@Suite struct FailureClassificationTests {
    @Test("silence is not_modem only for a port that never answered; after an answer it is a module in trouble")
    func silence() {
        let silent = ModemProbeError.notAModem(port: "/dev/ttyUSB0", baudRates: [115_200], sawBytes: false)
        let never = ModemFailure.probe(silent, everAnswered: false)
        #expect(never.code == .notAModem && never.disposition == .notModem)
        let before = ModemFailure.probe(silent, everAnswered: true)
        #expect(before.code == .unresponsive && before.disposition == .retry)
    }

    @Test("a busy port is retried; a missing node is gone; other open failures are retried")
    func openFailures() {
        let busy = ModemFailure.probe(
            .portUnavailable(port: "/dev/ttyUSB2", reason: .portBusy(port: "/dev/ttyUSB2")),
            everAnswered: false
        )
        #expect(busy.code == .portBusy && busy.disposition == .retry)
        #expect(busy.code.advice.contains("ModemManager"))
        let missing = ModemFailure.probe(
            .portUnavailable(port: "/dev/ttyUSB2", reason: .openFailed(port: "/dev/ttyUSB2", errno: ENOENT)),
            everAnswered: false
        )
        #expect(missing.code == .deadPort && missing.disposition == .gone)
        let denied = ModemFailure.probe(
            .portUnavailable(port: "/dev/ttyUSB2", reason: .openFailed(port: "/dev/ttyUSB2", errno: EACCES)),
            everAnswered: false
        )
        #expect(denied.code == .portUnavailable && denied.disposition == .retry)
    }

    @Test("a closed port is gone when its node went with it, retried when the node is still there")
    func closedPorts() {
        let gone = ModemFailure.session(
            ATError.transportClosed(command: "AT+CSQ", port: "/dev/nbgw-no-such-node", reason: .hangUp),
            port: "/dev/nbgw-no-such-node",
            imei: nil,
            phase: .ready
        )
        #expect(gone.code == .deadPort && gone.disposition == .gone)
        let kept = ModemFailure.session(
            ATError.transportClosed(command: "AT+CSQ", port: "/dev/null", reason: .hangUp),
            port: "/dev/null",
            imei: nil,
            phase: .ready
        )
        #expect(kept.code == .deadPort && kept.disposition == .retry)
    }

    @Test("bring-up, network and cloud failures carry their own codes and are retried")
    func sessionFailures() {
        let refused = ModemFailure.session(
            ATError.commandFailed(
                command: "AT+CGDCONT=1,\"IP\",\"x\"",
                port: "/dev/ttyUSB2",
                final: .cmeError(code: 4, text: nil),
                lines: []
            ),
            port: "/dev/ttyUSB2",
            imei: "864425038511204",
            phase: .configuring
        )
        #expect(refused.code == .bringUpFailed && refused.message.contains("864425038511204"))
        let denied = ModemFailure.session(
            ModemBringUpError.registrationDenied(RegistrationStatus(stat: 3, rejectCause: 11), port: "/dev/ttyUSB2"),
            port: "/dev/ttyUSB2",
            imei: nil,
            phase: .searching
        )
        #expect(denied.code == .registrationDenied && denied.message.contains("reject cause 11"))
        let late = ModemFailure.session(
            ModemBringUpError.registrationTimedOut(last: nil, after: .seconds(120), port: "/dev/ttyUSB2"),
            port: "/dev/ttyUSB2",
            imei: nil,
            phase: .searching
        )
        #expect(late.code == .registrationTimeout && late.disposition == .retry)
        let cloud = ModemFailure.session(
            NBGWError(.timeout, "the cloud did not answer within 10 s"),
            port: "/dev/ttyUSB2",
            imei: "864425038511204",
            phase: .registering
        )
        #expect(cloud.code == .cloudRegistration && cloud.disposition == .retry && cloud.message.contains("TIMEOUT"))
        let silent = ModemFailure.session(
            ATError.unresponsive(command: "AT+CSQ", port: "/dev/ttyUSB2", attempts: 1),
            port: "/dev/ttyUSB2",
            imei: nil,
            phase: .ready
        )
        #expect(silent.code == .unresponsive && silent.disposition == .retry)
    }
}

/// The AT traffic meter behind `nbgw_at_*_total`.
@Suite struct ATTrafficMeterTests {
    @Test("counts command lines, failure finals, and commands abandoned for another; wake-up ATs are no timeouts")
    func counts() {
        let metrics = GatewayMetrics()
        let answered = Counter()
        let meter = ATTrafficMeter(metrics: metrics) { answered.add() }
        for _ in 0..<3 { meter.sent(Array("AT\r".utf8)) }
        #expect(metrics.counters.atTimeouts == 0 && answered.value == 0)
        meter.received(Array("AT\r\r\nO".utf8))
        meter.received(Array("K\r\n".utf8))
        #expect(answered.value == 1)
        meter.sent(Array("AT+CGMI\r".utf8))
        meter.sent(Array("AT+CMEE?\r".utf8))  // AT+CGMI never answered: abandoned
        meter.received(Array("\r\n+CMEE: 1\r\n\r\nOK\r\n".utf8))
        meter.sent(Array("AT+CESQ\r".utf8))
        meter.received(Array("\r\n+CME ERROR: 4\r\n".utf8))
        meter.sent(Array("AT+QCFG=\"band\"\r".utf8))
        meter.received(Array("\r\nERROR\r\n".utf8))
        meter.sent([0x1A])  // a prompt payload's Ctrl-Z is no command line
        let counters = metrics.counters
        #expect(counters.atCommands == 7)
        #expect(counters.atTimeouts == 1)
        #expect(counters.atErrors == 2)
        #expect(answered.value == 1, "the first answer is announced once")
    }

    final class Counter: Sendable {
        private let count = Mutex(0)
        func add() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }
}
