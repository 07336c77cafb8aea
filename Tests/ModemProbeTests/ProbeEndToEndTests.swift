import ATKit
import Foundation
import ModemSimulatorKit
import Synchronization
import Testing

/// `ModemProbe` against every simulated family over a real pseudo-terminal. Expected values come
/// from the family's definition, so the test states what the module is, not what the probe said.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct ProbeEndToEndTests {
    struct Expectation: Sendable, CustomTestStringConvertible {
        var spec: String
        var dialect: String
        var technology: String?
        var firmware: String
        var iccid: String

        var testDescription: String { spec }
    }

    static let families: [Expectation] = [
        Expectation(
            spec: "bc95",
            dialect: "quectel-bc95",
            technology: "nb-iot",
            firmware: "V100R100C10B657SP2",
            iccid: "89860317452051234567"
        ),
        Expectation(
            spec: "bc66",
            dialect: "quectel-bc66",
            technology: "nb-iot",
            firmware: "BC66NBR01A10",
            iccid: "89860446091891234567"
        ),
        Expectation(
            spec: "bg95",
            dialect: "quectel-bg9x",
            technology: "lte-m",
            firmware: "BG95M3LAR02A03",
            iccid: "89490200001234567890"
        ),
        Expectation(
            spec: "sim7080",
            dialect: "simcom-sim7080",
            technology: "lte-m",
            firmware: "1951B16SIM7080",
            iccid: "89882280666027595366"
        ),
        Expectation(
            spec: "sara-r410",
            dialect: "ublox-sara-r4",
            technology: "lte-m",
            firmware: "L0.0.00.00.05.06 [Feb 03 2018 13:00:41]",
            iccid: "89011703278123456789"
        ),
        Expectation(
            spec: "generic",
            dialect: "3gpp",
            technology: "lte",
            firmware: "1.0.0",
            iccid: "89001012345678901234"
        ),
    ]

    @Test(arguments: families)
    func probesEveryRegisteredFamily(_ expected: Expectation) async throws {
        let fixture = try SimulatorFixture([expected.spec])
        let family = try #require(SimulatedFamily.named(expected.spec))
        let report = try await ModemProbe(options: .testing).probe(port: fixture.path())
        #expect(report.manufacturer == family.manufacturer)
        #expect(report.model == family.model)
        #expect(report.firmware == expected.firmware)
        #expect(report.dialect == expected.dialect)
        #expect(report.baud == family.nominalBaud)
        #expect(report.imei == family.imei(port: 0))
        #expect(report.imsi == family.imsi)
        #expect(report.iccid == expected.iccid)
        #expect(report.sim == "ready")
        #expect(report.functionality == 1)
        #expect(report.registration.stat == 1)
        #expect(report.registration.state == "registered_home")
        #expect(report.registration.tac == family.trackingAreaCode)
        #expect(report.registration.ci == family.cellID)
        #expect(report.registration.act == family.accessTechnology)
        #expect(report.registration.technology == expected.technology)
        #expect(report.registration.rejectCause == nil)
        #expect(report.registration.psm == .init())
        #expect(report.signal.rssiDBm == SignalQuality.dBm(rssi: family.csq.rssi))
        #expect(report.signal.rsrpDBm == family.cesq.flatMap { ExtendedSignalQuality.rsrpDBm(index: $0.rsrp) })
        #expect(report.signal.rsrqDB == family.cesq.flatMap { ExtendedSignalQuality.rsrqDB(index: $0.rsrq) })
        #expect(report.operator == family.operatorNumeric)
        #expect(report.notes.isEmpty, "\(report.notes)")
    }

    @Test func bc95AtNineThousandSixHundredWithoutSpacesAfterColons() async throws {
        let fixture = try SimulatorFixture(["bc95"])
        var trace: [ATTraceEvent] = []
        let recorder = TraceRecorder()
        var options = ModemProbeOptions.testing
        options.trace = { recorder.record($0) }
        let report: ModemProbeReport
        do {
            report = try await ModemProbe(options: options).probe(port: fixture.path())
        } catch {
            for event in recorder.events { print("TRACE", event) }
            throw error
        }
        trace = recorder.events
        #expect(report.baud == 9600)
        #expect(report.imei == "866971030221902")
        // The serial number that bare AT+CGSN gives is never taken for the IMEI.
        let received = trace.filter { $0.direction == .received }.map(\.escapedText).joined()
        #expect(received.contains("+CGSN:866971030221902"))
        #expect(received.contains("+CEREG:5,1,\"1A2B\",\"01A2D101\",9"))
        let sent = trace.filter { $0.direction == .sent }.map(\.escapedText)
        #expect(sent.contains("AT+CGSN=1\\r"))
        #expect(sent.contains("AT+NCCID\\r"))
        #expect(!sent.contains("AT+CGSN\\r"))
    }

    @Test func nrf9160WithTheRadioOffReportsNullsNotGuesses() async throws {
        let fixture = try SimulatorFixture(["nrf9160"])
        let report = try await ModemProbe(options: .testing).probe(port: fixture.path())
        #expect(report.dialect == "nordic-nrf91")
        #expect(report.imei == "351358811234506")
        #expect(report.iccid == "8947080037110123456")
        #expect(report.functionality == 0)
        #expect(report.registration.stat == 0)
        #expect(report.registration.state == "not_registered")
        #expect(
            report.registration.tac == nil && report.registration.act == nil && report.registration.technology == nil
        )
        #expect(report.signal == .init())
        #expect(report.operator == nil)
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as! [String: Any]
        #expect(
            Set(json.keys) == [
                "imei", "imsi", "iccid", "manufacturer", "model", "firmware", "dialect", "baud", "sim", "registration",
                "signal", "operator",
            ]
        )
        #expect(json["operator"] is NSNull)
        let registration = json["registration"] as! [String: Any]
        #expect(Set(registration.keys) == ["stat", "state", "tac", "ci", "act", "technology", "reject_cause", "psm"])
        #expect(registration["tac"] is NSNull && registration["reject_cause"] is NSNull)
        let psm = registration["psm"] as! [String: Any]
        #expect(Set(psm.keys) == ["active_time_s", "periodic_tau_s"])
        #expect(psm.values.allSatisfy { $0 is NSNull })
        let signal = json["signal"] as! [String: Any]
        #expect(Set(signal.keys) == ["rssi_dbm", "rsrp_dbm", "rsrq_db"])
        #expect(signal.values.allSatisfy { $0 is NSNull })
        #expect(
            try JSONDecoder().decode(ModemProbeReport.self, from: JSONEncoder().encode(report))
                == {
                    var copy = report
                    copy.port = ""
                    copy.functionality = nil
                    copy.notes = []
                    return copy
                }()
        )
    }

    @Test func grantedPSMTimersInSeconds() async throws {
        let fixture = try SimulatorFixture(["bc95,psm=on"])
        let report = try await ModemProbe(options: .testing).probe(port: fixture.path())
        #expect(report.registration.psm == .init(activeTimeSeconds: 60, periodicTAUSeconds: 86400))
    }

    @Test func missingSIM() async throws {
        let fixture = try SimulatorFixture(["bg95,sim=missing"])
        let report = try await ModemProbe(options: .testing).probe(port: fixture.path())
        #expect(report.sim == "not_inserted")
        #expect(report.imsi == nil && report.iccid == nil)
        #expect(report.imei == SimulatedFamily.bg95.imei(port: 0))
        #expect(report.registration.stat == 0)
        #expect(report.notes.contains { $0.hasPrefix("imsi:") && $0.contains("+CME ERROR: 10") })
    }

    @Test func registrationDeniedWithRejectCause() async throws {
        let fixture = try SimulatorFixture(["generic,registration=denied:11"])
        // Wait until the simulated network has answered (40 ms at this scale) by asking for it.
        let report = try await ModemProbe(options: .testing).probe(port: fixture.path())
        #expect(report.registration.stat == 3)
        #expect(report.registration.state == "denied")
        #expect(report.registration.rejectCause == 11)
        #expect(report.registration.tac == nil)
    }

    @Test func probesManyPortsAtOnce() async throws {
        let fixture = try SimulatorFixture(["bg95", "sim7080", "diag", "bc66"])
        let results = await ModemProbe(options: .testing).probe(ports: fixture.ports.map(\.path))
        #expect(results.count == 4)
        #expect((try? results[0].get())?.dialect == "quectel-bg9x")
        #expect((try? results[1].get())?.dialect == "simcom-sim7080")
        #expect((try? results[3].get())?.dialect == "quectel-bc66")
        guard case .failure(let error) = results[2] else {
            Issue.record("the diagnostic port was taken for a modem")
            return
        }
        #expect(error.kind == .notAModem)
    }
}

/// Collects trace events from the probe's transport.
final class TraceRecorder: Sendable {
    private let collected = Mutex<[ATTraceEvent]>([])

    func record(_ event: ATTraceEvent) {
        collected.withLock { $0.append(event) }
    }

    var events: [ATTraceEvent] { collected.withLock { $0 } }
}
