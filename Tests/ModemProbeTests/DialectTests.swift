import ATKit
import Testing

/// Dialects as data: identification, URC tables, AcT meaning, and the RAT/band/APN hooks.
@Suite struct DialectTests {
    @Test(arguments: [
        ("Quectel", "BC95HB-02-STD_850", "quectel-bc95"),
        ("Quectel", "BC95GJB-02-STD", "quectel-bc95"),
        ("Quectel", "BC35-G", "quectel-bc95"),
        ("Quectel_Ltd", "Quectel_BC66", "quectel-bc66"),
        ("Quectel_Ltd", "Quectel_BC660K-GL", "quectel-bc660k"),
        ("Quectel", "BG95-M3", "quectel-bg9x"),
        ("Quectel", "BG96", "quectel-bg9x"),
        ("SIMCOM_Ltd", "SIMCOM_SIM7000E", "simcom-sim7000"),
        ("SIMCOM INCORPORATED", "SIMCOM_SIM7080G", "simcom-sim7080"),
        ("u-blox", "SARA-N211-02B", "ublox-sara-n2"),
        ("u-blox", "SARA-R410M-02B", "ublox-sara-r4"),
        ("u-blox", "SARA-R500S", "ublox-sara-r4"),
        ("Nordic Semiconductor ASA", "nRF9160-SICA", "nordic-nrf91"),
        ("Telit", "ME910C1-WW", "3gpp"),
        ("Quectel", "EC25", "3gpp"),
        ("SIMCOM_Ltd", "SARA-R410M", "3gpp"),
    ])
    func identifiesTheFamily(_ manufacturer: String, _ model: String, _ id: String) {
        #expect(ModemDialect.identify(manufacturer: manufacturer, model: model).id == id)
    }

    @Test("Identification folds ASCII case only: odd capitals match, a non-ASCII look-alike does not")
    func identificationFoldsASCIICase() {
        #expect(ModemDialect.identify(manufacturer: "QUECTEL", model: "bg95-m3").id == "quectel-bg9x")
        #expect(ModemDialect.identify(manufacturer: "quectel_ltd", model: "quectel_bc66").id == "quectel-bc66")
        #expect(
            ModemDialect.identify(manufacturer: "nordic semiconductor asa", model: "NRF9160-SICA").id == "nordic-nrf91"
        )
        // Only ASCII letters are folded: a fullwidth "Ｂ" (U+FF22) is not "B".
        #expect(ModemDialect.identify(manufacturer: "Quectel", model: "\u{FF22}G95-M3").id == "3gpp")
        // Too short to contain the model name at all.
        #expect(ModemDialect.identify(manufacturer: "Quectel", model: "BG").id == "3gpp")
    }

    @Test func modelAloneIsEnoughWhenCGMIFailed() {
        #expect(ModemDialect.identify(manufacturer: nil, model: "BG95-M3").id == "quectel-bg9x")
        #expect(ModemDialect.identify(manufacturer: nil, model: nil).id == "3gpp")
    }

    @Test func catalogueIsConsistent() {
        let ids = ModemDialect.catalogue.map(\.id)
        #expect(Set(ids).count == ids.count)
        for dialect in ModemDialect.catalogue {
            #expect(ModemDialect.named(dialect.id)?.id == dialect.id)
            let identification = try! #require(dialect.identification)
            #expect(!identification.models.isEmpty && !identification.manufacturers.isEmpty)
            #expect(dialect.technologies.count > 0)
        }
    }

    @Test func vendorURCsAreURCsForTheirDialect() {
        let cases: [(ModemDialect, String)] = [
            (.quectelBC95, "+NSONMI:0,4"), (.quectelBC66, "+QNBIOTEVENT: \"ENTER PSM\""),
            (.quectelBG9x, "PSM POWER DOWN"),
            (.simcomSIM7080, "+CPSMSTATUS: ENTER PSM"), (.ubloxSARAR4, "+UUSORD: 0,12"), (.nordicNRF91, "%XSIM: 1"),
        ]
        for (dialect, line) in cases {
            let classifier = ATLineClassifier(urcTable: dialect.urcTable)
            // Even while a bare-text command is in flight.
            guard case .urc(let urc) = classifier.classify(line, pending: ATCommandRequest("AT+CGMI").expectation)
            else {
                Issue.record("\(line) is not a URC for \(dialect.id)")
                continue
            }
            #expect(urc.isRecognised)
            #expect(ModemDialect.unionURCTable.match(line) != nil)
        }
    }

    @Test func bootMarkersBecomeRebootEvents() {
        let cases: [(ModemDialect, String)] = [
            (.quectelBC95, "REBOOT_CAUSE_SECURITY_WATCHDOG"), (.quectelBC66, "Leaving the BROM"), (.quectelBG9x, "RDY"),
            (.simcomSIM7080, "RDY"), (.nordicNRF91, "Ready"),
        ]
        for (dialect, line) in cases {
            let pattern = try! #require(dialect.urcTable.match(line))
            let urc = ATURC(name: pattern.key, line: line)
            #expect(ModemEvent(urc: urc, dialect: dialect) == .rebooted(marker: line))
        }
        // u-blox prints its name as a banner, but "u-blox" is also the AT+CGMI answer: never a URC.
        #expect(ModemDialect.unionURCTable.match("u-blox") == nil)
    }

    @Test func accessTechnologyPerDialect() {
        #expect(ModemDialect.ts27007.technology(forAccessTechnology: 7) == .lte)
        #expect(ModemDialect.ts27007.technology(forAccessTechnology: 8) == .ecGSMIoT)
        #expect(ModemDialect.ts27007.technology(forAccessTechnology: 9) == .nbIoT)
        for dialect in [ModemDialect.quectelBG9x, .ubloxSARAR4, .simcomSIM7080, .nordicNRF91] {
            #expect(dialect.technology(forAccessTechnology: 7) == .lteM)
            #expect(dialect.technology(forAccessTechnology: 8) == .lteM)
            #expect(dialect.technology(forAccessTechnology: 9) == .nbIoT)
        }
        #expect(ModemDialect.quectelBG9x.technology(forAccessTechnology: 0) == .gsm)
        #expect(ModemDialect.quectelBG9x.technology(forAccessTechnology: 42) == nil)
    }

    @Test func radioAccessCommands() {
        #expect(
            ModemDialect.quectelBG9x.radioAccessCommands([.lteM])?.map(\.command) == [
                "AT+QCFG=\"nwscanmode\",3,1", "AT+QCFG=\"iotopmode\",0,1", "AT+QCFG=\"nwscanseq\",02,1",
            ]
        )
        #expect(
            ModemDialect.quectelBG9x.radioAccessCommands([.nbIoT, .lteM, .gsm])?.map(\.command).last
                == "AT+QCFG=\"nwscanseq\",030201,1"
        )
        #expect(
            ModemDialect.simcomSIM7080.radioAccessCommands([.nbIoT])?.map(\.command) == ["AT+CNMP=38", "AT+CMNB=2"]
        )
        #expect(
            ModemDialect.simcomSIM7000.radioAccessCommands([.lteM, .gsm])?.map(\.command) == [
                "AT+CNMP=51", "AT+CMNB=1",
            ]
        )
        #expect(ModemDialect.ubloxSARAR4.radioAccessCommands([.lteM, .nbIoT])?.map(\.command) == ["AT+URAT=7,8"])
        #expect(
            ModemDialect.nordicNRF91.radioAccessCommands([.nbIoT, .lteM])?.map(\.command) == [
                "AT+CFUN=4", "AT%XSYSTEMMODE=1,1,0,2",
            ]
        )
        #expect(ModemDialect.quectelBC95.radioAccessCommands([.nbIoT])?.isEmpty == true)
        #expect(ModemDialect.quectelBC95.radioAccessCommands([.lteM]) == nil)
        #expect(ModemDialect.ts27007.radioAccessCommands([.lte]) == nil)
    }

    @Test func bandCommands() {
        #expect(
            ModemDialect.quectelBG9x.bandCommands([8, 20], .lteM)?.map(\.command) == ["AT+QCFG=\"band\",0,80080,0,1"]
        )
        #expect(ModemDialect.quectelBG9x.bandCommands([3], .nbIoT)?.map(\.command) == ["AT+QCFG=\"band\",0,0,4,1"])
        #expect(
            ModemDialect.quectelBG9x.bandCommands([66], .lteM)?.first?.command
                == "AT+QCFG=\"band\",0,20000000000000000,0,1"
        )
        #expect(ModemDialect.quectelBC95.bandCommands([8, 20], .nbIoT)?.map(\.command) == ["AT+NBAND=8,20"])
        #expect(ModemDialect.quectelBC66.bandCommands([3, 8], .nbIoT)?.map(\.command) == ["AT+QBAND=2,3,8"])
        #expect(
            ModemDialect.simcomSIM7080.bandCommands([3, 20], .lteM)?.map(\.command) == ["AT+CBANDCFG=\"CAT-M\",3,20"]
        )
        #expect(ModemDialect.ubloxSARAR4.bandCommands([3, 8], .lteM)?.map(\.command) == ["AT+UBANDMASK=0,132"])
        let lock = ModemDialect.nordicNRF91.bandCommands([20], .nbIoT)?.first?.command ?? ""
        #expect(lock.hasPrefix("AT%XBANDLOCK=1,\"") && lock.count == "AT%XBANDLOCK=1,\"\"".count + 88)
        #expect(
            lock.dropFirst("AT%XBANDLOCK=1,\"".count).prefix(88).enumerated().filter { $0.element == "1" }.map(\.offset)
                == [68]
        )
        #expect(ModemDialect.quectelBC95.bandCommands([8], .lteM) == nil)
    }

    @Test func apnCommands() throws {
        let context = PDPContext(cid: 1, apn: "iot.example")
        #expect(
            try ModemDialect.quectelBG9x.apnCommands(context).map(\.command) == ["AT+CGDCONT=1,\"IP\",\"iot.example\""]
        )
        #expect(
            try ModemDialect.quectelBC66.apnCommands(context).map(\.command) == ["AT+QCGDEFCONT=\"IP\",\"iot.example\""]
        )
        #expect(throws: ATCommandArgumentError.self) {
            try ModemDialect.quectelBG9x.apnCommands(PDPContext(cid: 1, apn: "bad\"apn"))
        }
        #expect(throws: ATCommandArgumentError.self) {
            try ModemDialect.quectelBC66.apnCommands(PDPContext(cid: 1, apn: "a,b"))
        }
        #expect(ModemDialect.nordicNRF91.defaultContextID == 0 && ModemDialect.quectelBC95.defaultContextID == 0)
    }

    @Test func iccidNormalisation() {
        #expect(ICCIDQuery.normalise("8947080037110123456F") == "8947080037110123456")
        #expect(ICCIDQuery.normalise("\"89860317452051234567\"") == "89860317452051234567")
        #expect(ICCIDQuery.normalise("898604A5191890123456") == "898604A5191890123456")
        // Raw EF-ICCID, nibble-swapped.
        #expect(ICCIDQuery.normalise("98684030475102435276") == "89860403741520342567")
        #expect(ICCIDQuery.normalise("12345") == nil)
        #expect(ICCIDQuery.normalise("ERROR") == nil)
    }

    @Test func suggestedTimeoutsForSlowCommands() {
        #expect(ATCommandTimeout.suggested(for: "AT+COPS=?") == .seconds(180))
        #expect(ATCommandTimeout.suggested(for: "at+cfun=1") == .seconds(60))
        #expect(ATCommandTimeout.suggested(for: "AT+CFUN=1,1") == ATCommandTimeout.reboot)
        #expect(ATCommandTimeout.suggested(for: "AT+NRB") == ATCommandTimeout.reboot)
        #expect(ATCommandTimeout.suggested(for: "AT+CGATT=1") == ATCommandTimeout.attach)
        #expect(ATCommandTimeout.suggested(for: "AT+CSQ") == nil)
        #expect(CFUN.Set(.full).timeout == ATCommandTimeout.functionality)
        #expect(COPS.Scan().timeout == ATCommandTimeout.operatorScan)
        #expect(CGATT.Set(attached: true).timeout == ATCommandTimeout.attach)
        #expect(ModemDialect.quectelBC95.rebootCommand?.timeout == ATCommandTimeout.reboot)
    }
}
