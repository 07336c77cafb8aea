import ATKit
import Foundation
import ModemSimulatorKit
import TestClocks
import Testing

/// Bring-up against simulated modules over a pty. Deadlines and polling run on a manual clock, so
/// "no registration within 10 minutes" is tested without waiting 10 minutes; the simulated network
/// runs at 2 % speed.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct BringUpTests {
    let clock = ManualClock()

    /// A session on `spec`'s first port, with its dialect, and an event hub.
    func connect(
        _ fixture: SimulatorFixture,
        dialect: ModemDialect
    ) async throws -> (ATSession, ModemEventHub, ModemBringUp) {
        let connection = try await ModemProbe(options: .testing).connect(port: fixture.path())
        let session = ATSession(
            transport: connection.transport,
            configuration: dialect.sessionConfiguration(defaultTimeout: .seconds(5))
        )
        let hub = ModemEventHub(urcs: session.urcs, dialect: dialect)
        _ = try await session.send("ATE0")
        return (session, hub, ModemBringUp(session: session, dialect: dialect, clock: clock))
    }

    @Test func appliesAPlanInHumanUnitsAndWaitsForRegistration() async throws {
        let fixture = try SimulatorFixture(["bg95"])
        let (session, hub, bringUp) = try await connect(fixture, dialect: .quectelBG9x)
        let summary = try await bringUp.apply(
            ModemBringUpPlan(
                apn: "iot.example",
                technologies: [.lteM, .nbIoT],
                bands: [.lteM: [8, 20]],
                powerSaving: .init(periodicTAU: 86400, activeTime: 61),
                edrx: [.lteM: 80]
            )
        )
        #expect(summary.registrationReporting == .psmAndCause)
        #expect(summary.requestedPeriodicTAU == 86400)
        #expect(summary.requestedActiveTime == 62)  // 61 s is not representable: 31 × 2 s
        #expect(summary.requestedEDRX == [.lteM: 81.92])
        #expect(
            summary.commands == [
                "AT+CMEE=1", "AT+CFUN=0", "AT+QCFG=\"nwscanmode\",3,1", "AT+QCFG=\"iotopmode\",2,1",
                "AT+QCFG=\"nwscanseq\",0203,1", "AT+QCFG=\"band\",0,80080,0,1", "AT+CGDCONT=1,\"IP\",\"iot.example\"",
                "AT+CPSMS=1,,,\"00111000\",\"00011111\"", "AT+CEDRXS=2,4,\"0101\"", "AT+CEREG=5", "AT+CFUN=1",
            ]
        )
        // CFUN=1 restarts registration; the +CEREG URC (level 5) ends the wait, with the granted timers.
        let status = try await bringUp.waitForRegistration(events: hub, within: .seconds(600))
        #expect(status.isRegistered && status.accessTechnology == 8)
        #expect(status.activeTimeSeconds == 62 && status.periodicTAUSeconds == 86400)
        #expect(try await session.send(CGDCONT.Read()) == [PDPContext(cid: 1, apn: "iot.example")])
        let psm = try await session.send(CPSMS.Read())
        #expect(psm.enabled && psm.periodicTAUSeconds == 86400 && psm.activeTimeSeconds == 62)
        #expect(try await session.send(CEDRXS.Read()) == [EDRXSetting(technology: .lteM, requestedBits: "0101")])
        #expect(hub.latestRegistration?.isRegistered == true)
        await session.close()
    }

    @Test func alreadyRegisteredReturnsAtOnce() async throws {
        let fixture = try SimulatorFixture(["sim7080"])
        let (session, hub, bringUp) = try await connect(fixture, dialect: .simcomSIM7080)
        try await bringUp.enableRegistrationReports()
        // Poll until the simulated network (80 ms) has registered, so the first read answers.
        while try await session.send(CEREG.Read()).isRegistered == false {}
        let status = try await bringUp.waitForRegistration(events: hub, within: .seconds(60))
        #expect(status.stat == 1 && status.areaCode == "2F1D")
        #expect(clock.sleeperCount == 0)
        await session.close()
    }

    @Test func deniedRegistrationIsAnErrorWithTheRejectCause() async throws {
        let fixture = try SimulatorFixture(["generic,registration=denied"])
        let (session, hub, bringUp) = try await connect(fixture, dialect: .ts27007)
        try await bringUp.enableRegistrationReports()
        try await bringUp.setFunctionality(.radioOff)
        try await bringUp.setFunctionality(.full)
        await #expect {
            try await bringUp.waitForRegistration(events: hub, within: .seconds(600))
        } throws: { error in
            guard case .registrationDenied(let status, let port)? = error as? ModemBringUpError else { return false }
            return status.rejectCause == 15 && status.causeType == 0 && port == fixture.path()
        }
        await session.close()
    }

    @Test func deadlineOnTheInjectedClock() async throws {
        let fixture = try SimulatorFixture(["generic,registration=never"])
        let (session, hub, bringUp) = try await connect(fixture, dialect: .ts27007)
        try await bringUp.enableRegistrationReports()
        let waiting = Task {
            try await bringUp.waitForRegistration(events: hub, within: .seconds(600), pollInterval: .seconds(30))
        }
        // The poller and the deadline are both asleep on the manual clock: move past the deadline.
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(600))
        await #expect {
            try await waiting.value
        } throws: { error in
            guard case .registrationTimedOut(let last, let after, _)? = error as? ModemBringUpError else {
                return false
            }
            return after == .seconds(600) && (last == nil || last?.state == .searching)
        }
        await session.close()
    }

    @Test func aRebootWhileWaitingIsReported() async throws {
        let fixture = try SimulatorFixture(["bg95,registration=never"])
        let (session, hub, bringUp) = try await connect(fixture, dialect: .quectelBG9x)
        let waiting = Task { try await bringUp.waitForRegistration(events: hub, within: .seconds(600)) }
        await clock.waitForSleepers(2)
        fixture.simulator.inject(.reboot(afterCommands: 0), port: 0)
        await #expect {
            try await waiting.value
        } throws: { error in
            guard case .rebooted(let marker, _)? = error as? ModemBringUpError else { return false }
            return marker == "RDY"
        }
        #expect(hub.rebootCount == 1)
        await session.close()
    }

    @Test func rebootCommandWaitsForTheBannerAndTheModule() async throws {
        let fixture = try SimulatorFixture(["bc95"])
        let (session, hub, bringUp) = try await connect(fixture, dialect: .quectelBC95)
        let marker = try await ModemBringUp(session: session, dialect: .quectelBC95).reboot(
            events: hub,
            within: .seconds(30)
        )
        #expect(marker == "REBOOT_CAUSE_APPLICATION_AT")
        #expect(fixture.simulator.statistics()[0].reboots == 1)
        // The module answers again, echo back on (the session copes), settings back to defaults.
        #expect(try await session.send(CMEE.Read()) == 0)
        _ = bringUp
        await session.close()
    }

    @Test func powerSavingURCsBecomeEvents() async throws {
        let fixture = try SimulatorFixture(["bc95"])
        let (session, hub, bringUp) = try await connect(fixture, dialect: .quectelBC95)
        let events = hub.subscribe()
        try await bringUp.enablePowerSavingReports()
        // Active-Time 2 s: PSM 40 ms after the last command at this time scale.
        try await bringUp.setPowerSaving(periodicTAU: 3600, activeTime: 2)
        var iterator = events.makeAsyncIterator()
        while let event = await iterator.next() {
            if event == .powerSaving(.entered) { break }
        }
        await session.close()
    }

    @Test func unsupportedSettingsAreRefusedBeforeTalkingToTheModule() async throws {
        let fixture = try SimulatorFixture(["bc95"])
        let (session, _, bringUp) = try await connect(fixture, dialect: .quectelBC95)
        await #expect(throws: ModemBringUpError.self) { try await bringUp.setRadioAccess([.lteM]) }
        await #expect(throws: ModemBringUpError.self) { try await bringUp.configureAPN("bad apn") }
        await #expect(throws: ModemBringUpError.self) {
            try await bringUp.setPowerSaving(periodicTAU: 10, activeTime: 60)
        }
        #expect(fixture.simulator.statistics()[0].commands == 2)  // the wake AT and ATE0 only
        await session.close()
    }
}
