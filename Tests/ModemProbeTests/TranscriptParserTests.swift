import ATKit
import Testing

/// The typed command parsers against the annotated logs of `docs/at-logs/`, each replayed byte
/// by byte, whole, and in random splits: every chunking must give the same answers.
@Suite struct TranscriptParserTests {
    static let chunkings: [ATLog.Chunking] = [
        .byteByByte, .whole, .random(seed: 1, maximum: 3), .random(seed: 2, maximum: 7), .random(seed: 3, maximum: 64),
    ]

    static let logs = [
        "quectel-bc95-probe", "quectel-bc95-nrb-reboot", "quectel-bc66-boot-probe", "quectel-bg95-probe",
        "simcom-sim7080-probe", "ublox-sara-r410-probe", "nordic-nrf9160-probe", "generic-3gpp-denied",
    ]

    @Test(arguments: logs)
    func everyChunkingGivesTheSameOutcome(_ name: String) throws {
        let log = try ATLog(name)
        let reference = log.replay(chunking: .byteByByte)
        #expect(!reference.responses.isEmpty)
        for chunking in Self.chunkings {
            let replay = log.replay(chunking: chunking)
            #expect(replay.responses.map(\.response) == reference.responses.map(\.response), "\(name) \(chunking)")
            #expect(replay.urcs == reference.urcs, "\(name) \(chunking)")
            #expect(replay.unsolicitedFinals == reference.unsolicitedFinals, "\(name) \(chunking)")
        }
    }

    @Test func bc95WithoutSpacesAfterColons() throws {
        let replay = try ATLog("quectel-bc95-probe").replay(chunking: .random(seed: 9, maximum: 5))
        // The banner's OK belongs to nothing.
        #expect(replay.unsolicitedFinals == [.ok])
        #expect(replay.urcs.map(\.line).prefix(2) == ["REBOOT_CAUSE_SECURITY_PMU_POWER_ON_RESET", "Neul"])
        #expect(try CGMI().parse(#require(replay.response("AT+CGMI"))) == "Quectel")
        #expect(try CGMM().parse(#require(replay.response("AT+CGMM"))) == "BC95HB-02-STD_850")
        #expect(try CGMR().parse(#require(replay.response("AT+CGMR"))) == "V100R100C10B657SP2")
        #expect(try CGSN(.bare).parse(#require(replay.response("AT+CGSN"))) == "BC95NB17C0001234")
        #expect(try CGSN(.imei).parse(#require(replay.response("AT+CGSN=1"))) == "866971030221902")
        #expect(try CIMI().parse(#require(replay.response("AT+CIMI"))) == "460111176543210")
        #expect(
            try ModemDialect.quectelBC95.iccidQueries[0].parse(#require(replay.response("AT+NCCID")))
                == "89860317452051234567"
        )
        #expect(try CPIN.Read().parse(#require(replay.response("AT+CPIN?"))) == .ready)
        #expect(try CFUN.Read().parse(#require(replay.response("AT+CFUN?"))) == .full)
        let plain = try CEREG.Read().parse(#require(replay.response("AT+CEREG?")))
        #expect(plain == RegistrationStatus(reportingLevel: 0, stat: 1))
        let detailed = try CEREG.Read().parse(#require(replay.response("AT+CEREG?", occurrence: 1)))
        #expect(detailed.reportingLevel == 5)
        #expect(detailed.areaCode == "1A2B")
        #expect(detailed.cellID == "01A2D101")
        #expect(detailed.accessTechnology == 9)
        #expect(detailed.causeType == nil && detailed.rejectCause == nil)
        #expect(detailed.activeTimeSeconds == 60)
        #expect(detailed.periodicTAUSeconds == 86400)
        #expect(try CSQ().parse(#require(replay.response("AT+CSQ"))).rssiDBm == -77)
        let cesq = try CESQ().parse(#require(replay.response("AT+CESQ")))
        #expect(cesq.rsrpDBm == -94)
        #expect(cesq.rsrqDB == -13.5)
        let cops = try COPS.Read().parse(#require(replay.response("AT+COPS?")))
        #expect(cops == OperatorSelection(mode: 0, format: .numeric, name: "46011", accessTechnology: 9))
        #expect(ModemEvent(urc: replay.urcs.last!, dialect: .quectelBC95) == .powerSaving(.entered))
    }

    @Test func bc95RebootBannerEndsNRBWithItsOK() throws {
        let replay = try ATLog("quectel-bc95-nrb-reboot").replay()
        let nrb = try #require(replay.response("AT+NRB"))
        #expect(nrb.final == .ok)
        #expect(nrb.lines.first == "REBOOTING")
        #expect(replay.urcs.map(\.name) == ["REBOOT_CAUSE_", "Neul"])
        #expect(replay.urcs.allSatisfy { ModemDialect.quectelBC95.isBootMarker($0) })
        #expect(replay.unsolicitedFinals.isEmpty)
        #expect(replay.response("AT")?.final == .ok)
    }

    @Test func bc66LFCRBootTextAndATI() throws {
        let replay = try ATLog("quectel-bc66-boot-probe").replay(urcTable: ModemDialect.quectelBC66.urcTable)
        #expect(
            replay.unsolicitedText.prefix(6) == [
                "F1: 0000 0000", "V0: 0000 0000 [0001]", "00: 0006 000C", "01: 0000 0000", "U0: 0000 0001 [0000]",
                "T0: 0000 00B4",
            ]
        )
        #expect(replay.urcs.first?.line == "Leaving the BROM")
        #expect(ModemEvent(urc: replay.urcs[0], dialect: .quectelBC66) == .rebooted(marker: "Leaving the BROM"))
        #expect(ModemEvent(urc: replay.urcs[1], dialect: .quectelBC66) == .sim(.ready))
        let identification = try ATI().parse(#require(replay.response("ATI")))
        #expect(
            identification
                == ATI.Identification(manufacturer: "Quectel_Ltd", model: "Quectel_BC66", revision: "BC66NBR01A10")
        )
        #expect(
            ModemDialect.identify(manufacturer: identification.manufacturer, model: identification.model).id
                == "quectel-bc66"
        )
        #expect(try CGSN(.imei).parse(#require(replay.response("AT+CGSN=1"))) == "867187030123407")
        #expect(
            try ModemDialect.quectelBC66.iccidQueries[0].parse(#require(replay.response("AT+QCCID")))
                == "89860446091891234567"
        )
        let status = try CEREG.Read().parse(#require(replay.response("AT+CEREG?")))
        #expect(status.isRegistered && status.accessTechnology == 9 && status.areaCode == "5A1F")
        #expect(ModemEvent(urc: replay.urcs.last!, dialect: .quectelBC66) == .powerSaving(.entered))
    }

    @Test func bg95URCInsideAnswersAndAcT8MeansLTEM() throws {
        let replay = try ATLog("quectel-bg95-probe").replay(chunking: .random(seed: 4, maximum: 9))
        #expect(
            replay.urcs.map(\.line).prefix(6) == [
                "RDY", "+CFUN: 1", "+CPIN: READY", "+QUSIM: 1", "+QIND: SMS DONE", "APP RDY",
            ]
        )
        #expect(try CGSN().parse(#require(replay.response("AT+CGSN"))) == "864425038511204")
        // Once at boot, once inside the AT+CGSN answer.
        #expect(replay.urcs.filter { $0.line == "+QIND: SMS DONE" }.count == 2)
        let status = try CEREG.Read().parse(#require(replay.response("AT+CEREG?")))
        #expect(status.reportingLevel == 2 && status.stat == 1 && status.accessTechnology == 8)
        // The URC that arrived inside the read went to the URC stream.
        let urc = try #require(replay.urcs.first { $0.name == "+CEREG" })
        #expect(RegistrationStatus(urc: urc)?.cellID == "01D4A2F3")
        #expect(ModemDialect.quectelBG9x.technology(forAccessTechnology: 8) == .lteM)
        #expect(ModemDialect.ts27007.technology(forAccessTechnology: 8) == .ecGSMIoT)
        #expect(ModemEvent(urc: replay.urcs.last!, dialect: .quectelBG9x) == .powerSaving(.entered))
        #expect(ModemEvent(urc: replay.urcs[0], dialect: .quectelBG9x) == .rebooted(marker: "RDY"))
    }

    @Test func sim7080BareICCIDAfterResetJunk() throws {
        let replay = try ATLog("simcom-sim7080-probe").replay()
        #expect(replay.urcs.map(\.line).prefix(4) == ["RDY", "+CFUN: 1", "+CPIN: READY", "SMS Ready"])
        #expect(try CGMR().parse(#require(replay.response("AT+CGMR"))) == "1951B16SIM7080")
        #expect(
            try ModemDialect.simcomSIM7080.iccidQueries[0].parse(#require(replay.response("AT+CCID")))
                == "89882280666027595366"
        )
        #expect(try CEREG.Read().parse(#require(replay.response("AT+CEREG?"))).state == .registeredRoaming)
        let cops = try COPS.Read().parse(#require(replay.response("AT+COPS?")))
        #expect(cops.name == "O2 - UK" && cops.format == .long)
        let dialect = ModemDialect.simcomSIM7080
        #expect(
            replay.urcs.suffix(2).map { ModemEvent(urc: $0, dialect: dialect) } == [
                .powerSaving(.entered), .powerSaving(.exited),
            ]
        )
    }

    @Test func saraR410UnpaddedCellIdentity() throws {
        let replay = try ATLog("ublox-sara-r410-probe").replay()
        #expect(try CGMI().parse(#require(replay.response("AT+CGMI"))) == "u-blox")
        #expect(
            try ModemDialect.ubloxSARAR4.iccidQueries[0].parse(#require(replay.response("AT+CCID")))
                == "89011703278123456789"
        )
        let status = try CEREG.Read().parse(#require(replay.response("AT+CEREG?")))
        #expect(status.areaCode == "D0B" && status.areaCodeValue == 0xD0B)
        #expect(status.cellID == "C45C010" && status.cellIDValue == 0xC45C010)
        #expect(ModemDialect.ubloxSARAR4.technology(forAccessTechnology: status.accessTechnology!) == .lteM)
    }

    @Test func nrf9160QuotedIMEIPaddedICCIDAndPSMTimers() throws {
        let replay = try ATLog("nordic-nrf9160-probe").replay(chunking: .random(seed: 11, maximum: 4))
        #expect(try CGSN(.imei).parse(#require(replay.response("AT+CGSN=1"))) == "351358811234506")
        #expect(
            try ModemDialect.nordicNRF91.iccidQueries[0].parse(#require(replay.response("AT%XICCID")))
                == "8947080037110123456"
        )
        #expect(try CFUN.Read().parse(#require(replay.response("AT+CFUN?"))) == .minimum)
        let status = try CEREG.Read().parse(#require(replay.response("AT+CEREG?")))
        #expect(status.reportingLevel == 5 && status.stat == 1 && status.accessTechnology == 7)
        #expect(status.activeTimeSeconds == 60 && status.periodicTAUSeconds == 86400)
        #expect(replay.urcs.compactMap(RegistrationStatus.init(urc:)).map(\.stat) == [2, 1])
        #expect(ModemEvent(urc: replay.urcs.last!, dialect: .nordicNRF91) == .powerSaving(.entered))
        #expect(ModemEvent(urc: replay.urcs.first!, dialect: .nordicNRF91) == .rebooted(marker: "Ready"))
    }

    @Test func deniedRegistrationAndMissingSIM() throws {
        let replay = try ATLog("generic-3gpp-denied").replay()
        let urcs = replay.urcs.compactMap(RegistrationStatus.init(urc:))
        #expect(urcs.map(\.stat) == [2, 3])
        #expect(urcs[1].state == .denied && urcs[1].causeType == 0 && urcs[1].rejectCause == 15)
        let read = try CEREG.Read().parse(#require(replay.response("AT+CEREG?")))
        #expect(read.rejectCause == 15 && read.areaCode == nil && read.accessTechnology == nil)
        let cpin = try #require(replay.response("AT+CPIN?"))
        #expect(cpin.final == .cmeError(code: 10, text: nil))
        #expect(SIMState(error: cpin.final) == .notInserted)
        let cgreg = try CGREG.Read().parse(#require(replay.response("AT+CGREG?")))
        #expect(cgreg.routingAreaCode == "C0" && cgreg.cellID == "00ABCDEF" && cgreg.accessTechnology == 7)
    }
}
