import Foundation
import ModemSimulatorKit
import Testing

@testable import ATKit

/// The simulator itself: speed rules, echo, auto-baud, hang-up, statistics, specifications.
@Suite(.timeLimit(.minutes(1)))
struct SimulatorTests {
    /// Sends `command` on a raw transport and collects what arrives within `window`.
    func exchange(
        _ transport: SerialPortTransport,
        _ command: String,
        window: Duration = .milliseconds(200)
    ) async throws -> String {
        try await transport.write(Array((command + "\r").utf8))
        let probe = ModemProbe()
        var received: [UInt8] = []
        let clock = ContinuousClock()
        let end = clock.now + window
        while clock.now < end {
            if case .bytes(let bytes) = await probe.read(transport, within: end - clock.now) { received += bytes }
        }
        return String(decoding: received, as: UTF8.self)
    }

    @Test func wrongSpeedGivesNoiseRightSpeedGivesOK() async throws {
        let fixture = try SimulatorFixture(["bc95"])
        let fast = try SerialPortTransport(path: fixture.path(), configuration: .init(baudRate: 115_200))
        let noise = try await exchange(fast, "AT")
        #expect(!noise.contains("OK"))
        #expect(!noise.isEmpty)
        await fast.close()
        let slow = try SerialPortTransport(path: fixture.path(), configuration: .init(baudRate: 9600))
        #expect(try await exchange(slow, "AT") == "AT\r\r\nOK\r\n")
        #expect(try await exchange(slow, "ATE0") == "ATE0\r\r\nOK\r\n")
        #expect(try await exchange(slow, "AT+CEREG?").hasPrefix("\r\n+CEREG:0,"))
        await slow.close()
    }

    @Test func autoBaudSwallowsTheFirstAT() async throws {
        let fixture = try SimulatorFixture(["sim7080"])
        let port = try SerialPortTransport(path: fixture.path())
        #expect(try await !exchange(port, "AT").contains("OK"))
        #expect(try await exchange(port, "AT") == "AT\r\r\nOK\r\n")
        await port.close()
        // A new speed needs training again.
        let other = try SerialPortTransport(path: fixture.path(), configuration: .init(baudRate: 57600))
        #expect(try await exchange(other, "AT") == "")
        #expect(try await exchange(other, "AT+CCID").contains("89882280666027595366"))
        await other.close()
    }

    @Test func hangUpEndsTheHostsReads() async throws {
        let fixture = try SimulatorFixture(["generic"])
        let port = try SerialPortTransport(path: fixture.path())
        fixture.simulator.inject(.hangUp(afterCommands: 1), port: 0)
        try await port.write(Array("AT\r".utf8))
        await #expect(throws: ATTransportError.self) {
            while true { _ = try await port.read() }
        }
        #expect(fixture.simulator.hungUpPorts == [0])
        await port.close()
    }

    @Test func statisticsCountCommandsAndScriptedLatency() async throws {
        let fixture = try SimulatorFixture(["generic"], timeScale: 1)
        let port = try SerialPortTransport(path: fixture.path())
        _ = try await exchange(port, "AT+CGMI")
        _ = try await exchange(port, "AT+CIMI")
        await port.close()
        let statistics = try #require(fixture.simulator.statistics().first)
        #expect(statistics.commands == 2)
        // 5 ms + 20 ms scripted, plus wire time at 115200 baud.
        #expect(statistics.scriptedLatency > .milliseconds(25) && statistics.scriptedLatency < .milliseconds(30))
    }

    @Test(arguments: [
        "bc95", "bg95,sim=missing", "nrf9160,psm=on,registration=roaming", "sim7080,fault=garbage,fault=reboot:3",
        "generic,registration=denied:11,baud=9600", "diag", "nmea", "sara", "bc66,fault=no-answer:AT+CESQ",
    ])
    func specificationsParse(_ spec: String) throws {
        _ = try SimulatedPortConfiguration(spec: spec)
    }

    @Test(arguments: [
        "bc97", "bg95,sim=gone", "bg95,fault=explode", "bg95,fault=reboot:x", "bg95,colour=red", "bg95,psm",
    ])
    func badSpecificationsSayWhatWouldWork(_ spec: String) {
        #expect(throws: SimulatorConfigurationError.self) { try SimulatedPortConfiguration(spec: spec) }
    }

    @Test func everyFamilyHasValidIdentities() {
        for family in SimulatedFamily.all where family.kind == .modem {
            for index in 0..<3 {
                let imei = family.imei(port: index)
                #expect(
                    imei.count == 15
                        && SimulatedFamily.luhnCheckDigit(String(imei.prefix(14))) == Int(String(imei.last!))!
                )
            }
            #expect(ICCIDQuery.normalise(family.iccid) != nil, "\(family.id)")
            #expect(family.imsi.count == 15)
        }
    }
}

/// The simulated SIM and the interleaving counter the daemon tests rely on.
extension SimulatorTests {
    @Test("a locked SIM opens with its PIN, counts wrong ones, and blocks behind the PUK after three")
    func pinLock() async throws {
        let fixture = try SimulatorFixture(["generic,sim=pin,pin=2468"])
        let port = try SerialPortTransport(path: fixture.path())
        _ = try await exchange(port, "ATE0")
        #expect(try await exchange(port, "AT+CPIN?").contains("+CPIN: SIM PIN"))
        #expect(try await exchange(port, "AT+CIMI").contains("ERROR"))
        #expect(try await exchange(port, "AT+CPIN=\"1111\"").contains("ERROR"))
        #expect(try await exchange(port, "AT+CPINR=\"SIM PIN\"").contains("+CPINR: SIM PIN,2,3"))
        #expect(try await exchange(port, "AT+CPIN=\"2468\"").contains("OK"))
        #expect(try await exchange(port, "AT+CPIN?").contains("READY"))
        #expect(fixture.simulator.statistics()[0].pinEntries == 2)
        await port.close()
    }

    @Test("commands written before the previous answer are counted as interleaved; one at a time are not")
    func overlapCounter() async throws {
        let fixture = try SimulatorFixture(["generic"])
        let port = try SerialPortTransport(path: fixture.path())
        _ = try await exchange(port, "ATE0")
        _ = try await exchange(port, "AT+CGMM")
        #expect(fixture.simulator.statistics()[0].overlappingCommands == 0)
        // Two command lines in one write: the second arrives while the first's answer is due.
        _ = try await exchange(port, "AT+CGMM\rAT+CGMI")
        try await Task.sleep(for: .milliseconds(200))
        #expect(fixture.simulator.statistics()[0].overlappingCommands == 1)
        await port.close()
    }
}
