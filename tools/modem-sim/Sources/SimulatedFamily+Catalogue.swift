extension SimulatedFamily {
    /// Every family, by ``id``.
    public static let all: [SimulatedFamily] = [
        .bc95, .bc66, .bg95, .sim7080, .saraR410, .nrf9160, .generic, .diagnostic, .nmea,
    ]

    /// The family named `id` (also accepts a few aliases: `sara`, `nrf91`, `silent`, `gnss`).
    public static func named(_ id: String) -> SimulatedFamily? {
        let aliases = ["sara": "sara-r410", "nrf91": "nrf9160", "silent": "diag", "gnss": "nmea", "bc95-g": "bc95"]
        let wanted = aliases[id.lowercased()] ?? id.lowercased()
        return all.first { $0.id == wanted }
    }

    /// Latencies shared by the families, scaled per family: identification reads are quick, SIM
    /// reads slower, radio switching seconds, a network scan tens of seconds.
    private static func latency(base milliseconds: Int, sim: Int, radio: Duration) -> Latency {
        Latency(
            base: .milliseconds(milliseconds),
            overrides: [
                ("AT+CIMI", .milliseconds(sim)), ("AT+CCID", .milliseconds(sim)), ("AT+QCCID", .milliseconds(sim)),
                ("AT+NCCID", .milliseconds(sim)), ("AT%XICCID", .milliseconds(sim)), ("AT+CPIN?", .milliseconds(sim)),
                ("AT+CFUN=", radio), ("AT+CGATT=", radio * 2), ("AT+COPS=?", .seconds(30)), ("AT+COPS=0", radio),
            ]
        )
    }

    /// Quectel BC95-G (Hi2115): 9600 baud, no space after colons, serial number on bare
    /// `AT+CGSN`, `AT+NCCID`, `Neul` banner with an unsolicited `OK`, sleepy in PSM.
    public static let bc95 = SimulatedFamily(
        id: "bc95",
        kind: .modem,
        manufacturer: "Quectel",
        model: "BC95HB-02-STD_850",
        revisionLines: [
            "SECURITY,V100R100C10B657SP2", "PROTOCOL,V100R100C10B657SP2", "APPLICATION,V100R100C10B657SP2",
            "SEC_UPDATER,V100R100C10B657SP2", "APP_UPDATER,V100R100C10B657SP2", "RADIO,BC95HB-02-STD_850",
        ],
        identificationLines: ["Quectel", "BC95HB-02-STD_850", "Revision:V100R100C10B657SP2"],
        imeiBase: "86697103022190",
        serialNumber: "BC95NB17C0001234",
        quotesIMEI: false,
        imsi: "460111176543210",
        iccid: "89860317452051234567",
        iccidCommand: "AT+NCCID",
        iccidPrefix: "+NCCID",
        baud: .fixed(9600),
        nominalBaud: 9600,
        colon: ":",
        bootNoise: [0x00, 0x00, 0xFF, 0x00],
        bootLines: [
            "", "Boot: Unsigned", "Security B.. Verified", "Protocol A.. Verified", "Apps A...... Verified", "",
            "REBOOT_CAUSE_{cause}", "Neul ",
        ],
        bootLineEnding: "\r\n",
        readyLines: [],
        bootEndsWithOK: true,
        bootDuration: .seconds(4),
        initialFunctionality: 1,
        accessTechnology: 9,
        trackingAreaCode: "1A2B",
        cellID: "01A2D101",
        operatorNumeric: "46011",
        operatorName: "CHN-CT",
        csq: (18, 99),
        cesq: (13, 47),
        vendorCommands: ["AT+NPSMR", "AT+NBAND", "AT+NCONFIG", "AT+NCDP", "AT+QREGSWT", "AT+NATSPEED", "AT+NUESTATS"],
        rebootCommands: [],
        rebootWithBanner: "AT+NRB",
        powerSavingReportCommand: "AT+NPSMR=1",
        powerSavingEnterURC: "+NPSMR:1",
        powerSavingExitURC: "+NPSMR:0",
        sleepsInPowerSaving: true,
        interleavedURC: "+CSCON:1",
        searchDelay: .seconds(1),
        registrationDelay: .seconds(6),
        latency: latency(base: 35, sim: 90, radio: .seconds(3))
    )

    /// Quectel BC66 (MT2625): LF-CR mask-ROM banner, auto-baud, `AT+QCCID`.
    public static let bc66 = SimulatedFamily(
        id: "bc66",
        kind: .modem,
        manufacturer: "Quectel_Ltd",
        model: "Quectel_BC66",
        revisionLines: ["Revision: BC66NBR01A10"],
        identificationLines: ["Quectel_Ltd", "Quectel_BC66", "Revision: BC66NBR01A10"],
        imeiBase: "86718703012340",
        serialNumber: nil,
        quotesIMEI: false,
        imsi: "460041234567890",
        iccid: "89860446091891234567",
        iccidCommand: "AT+QCCID",
        iccidPrefix: "+QCCID",
        baud: .autoBaud,
        nominalBaud: 115_200,
        colon: ": ",
        bootNoise: [],
        bootLines: [
            "F1: 0000 0000", "V0: 0000 0000 [0001]", "00: 0006 000C", "01: 0000 0000", "U0: 0000 0001 [0000]",
            "T0: 0000 00B4", "Leaving the BROM",
        ],
        bootLineEnding: "\n\r",
        readyLines: ["+CPIN: READY"],
        bootEndsWithOK: false,
        bootDuration: .seconds(2),
        initialFunctionality: 1,
        accessTechnology: 9,
        trackingAreaCode: "5A1F",
        cellID: "0B7E3A02",
        operatorNumeric: "46000",
        operatorName: "CHINA MOBILE",
        csq: (22, 99),
        cesq: (16, 52),
        vendorCommands: ["AT+QBAND", "AT+QCGDEFCONT", "AT+QNBIOTEVENT", "AT+QSCLK", "AT+QENG", "AT+QCFG"],
        rebootCommands: ["AT+QRST=1"],
        rebootWithBanner: nil,
        powerSavingReportCommand: "AT+QNBIOTEVENT=1,1",
        powerSavingEnterURC: "+QNBIOTEVENT: \"ENTER PSM\"",
        powerSavingExitURC: "+QNBIOTEVENT: \"EXIT PSM\"",
        sleepsInPowerSaving: false,
        interleavedURC: "+CSCON: 1",
        searchDelay: .milliseconds(800),
        registrationDelay: .seconds(5),
        latency: latency(base: 15, sim: 60, radio: .seconds(2))
    )

    /// Quectel BG95-M3: `RDY` / `APP RDY`, AcT 8 for LTE-M, `AT+QCCID`, `+QIND` URCs.
    public static let bg95 = SimulatedFamily(
        id: "bg95",
        kind: .modem,
        manufacturer: "Quectel",
        model: "BG95-M3",
        revisionLines: ["BG95M3LAR02A03"],
        identificationLines: ["Quectel", "BG95-M3", "Revision: BG95M3LAR02A03"],
        imeiBase: "86442503851120",
        serialNumber: nil,
        quotesIMEI: false,
        imsi: "262011234567890",
        iccid: "89490200001234567890",
        iccidCommand: "AT+QCCID",
        iccidPrefix: "+QCCID",
        baud: .fixed(115_200),
        nominalBaud: 115_200,
        colon: ": ",
        bootNoise: [],
        bootLines: ["RDY"],
        bootLineEnding: "\r\n",
        readyLines: ["+CFUN: 1", "+CPIN: READY", "+QUSIM: 1", "+QIND: SMS DONE", "APP RDY"],
        bootEndsWithOK: false,
        bootDuration: .seconds(5),
        initialFunctionality: 1,
        accessTechnology: 8,
        trackingAreaCode: "B3C1",
        cellID: "01D4A2F3",
        operatorNumeric: "26201",
        operatorName: "Telekom.de",
        csq: (20, 99),
        cesq: (20, 55),
        vendorCommands: ["AT+QCFG", "AT+QURCCFG", "AT+QCFGEXT", "AT+QPSMS", "AT+QINDCFG"],
        rebootCommands: ["AT+CFUN=1,1"],
        rebootWithBanner: nil,
        powerSavingReportCommand: nil,
        powerSavingEnterURC: "PSM POWER DOWN",
        powerSavingExitURC: nil,
        sleepsInPowerSaving: false,
        interleavedURC: "+QIND: SMS DONE",
        searchDelay: .milliseconds(500),
        registrationDelay: .seconds(3),
        latency: latency(base: 8, sim: 30, radio: .seconds(2))
    )

    /// SIMCom SIM7080G: auto-baud, bare `AT+CCID`, PPP junk before `RDY`, `+CPSMSTATUS`.
    public static let sim7080 = SimulatedFamily(
        id: "sim7080",
        kind: .modem,
        manufacturer: "SIMCOM_Ltd",
        model: "SIMCOM_SIM7080G",
        revisionLines: ["Revision:1951B16SIM7080"],
        identificationLines: ["R1951.07"],
        imeiBase: "86183105000120",
        serialNumber: nil,
        quotesIMEI: false,
        imsi: "234100123456789",
        iccid: "89882280666027595366",
        iccidCommand: "AT+CCID",
        iccidPrefix: nil,
        baud: .autoBaud,
        nominalBaud: 115_200,
        colon: ": ",
        bootNoise: [0x7E, 0xFF, 0x7D, 0x23, 0xC0, 0x21, 0x7D, 0x21, 0x7D, 0x20, 0x7D, 0x20, 0x7E, 0x00],
        bootLines: ["", "RDY"],
        bootLineEnding: "\r\n",
        readyLines: ["+CFUN: 1", "+CPIN: READY", "SMS Ready"],
        bootEndsWithOK: false,
        bootDuration: .seconds(4),
        initialFunctionality: 1,
        accessTechnology: 7,
        trackingAreaCode: "2F1D",
        cellID: "0C45B21A",
        operatorNumeric: "23410",
        operatorName: "O2 - UK",
        csq: (15, 99),
        cesq: (11, 40),
        vendorCommands: ["AT+CMNB", "AT+CNMP", "AT+CBANDCFG", "AT+CPSMSTATUS", "AT+CNACT", "AT+CNCFG", "AT+CPSI"],
        rebootCommands: ["AT+CREBOOT", "AT+CFUN=1,1"],
        rebootWithBanner: nil,
        powerSavingReportCommand: "AT+CPSMSTATUS=1",
        powerSavingEnterURC: "+CPSMSTATUS: ENTER PSM",
        powerSavingExitURC: "+CPSMSTATUS: EXIT PSM",
        sleepsInPowerSaving: false,
        interleavedURC: "SMS Ready",
        searchDelay: .milliseconds(600),
        registrationDelay: .seconds(4),
        latency: latency(base: 10, sim: 40, radio: .seconds(2))
    )

    /// u-blox SARA-R410M-02B: no banner, AcT 8 for LTE-M, TAC and CI not zero-padded, `+CCID:`.
    public static let saraR410 = SimulatedFamily(
        id: "sara-r410",
        kind: .modem,
        manufacturer: "u-blox",
        model: "SARA-R410M-02B",
        revisionLines: ["L0.0.00.00.05.06 [Feb 03 2018 13:00:41]"],
        identificationLines: ["L0.0.00.00.05.06,A.02.01"],
        imeiBase: "35284610001230",
        serialNumber: nil,
        quotesIMEI: false,
        imsi: "310410123456789",
        iccid: "89011703278123456789",
        iccidCommand: "AT+CCID",
        iccidPrefix: "+CCID",
        baud: .fixed(115_200),
        nominalBaud: 115_200,
        colon: ": ",
        bootNoise: [],
        bootLines: [],
        bootLineEnding: "\r\n",
        readyLines: [],
        bootEndsWithOK: false,
        bootDuration: .seconds(6),
        initialFunctionality: 1,
        accessTechnology: 8,
        trackingAreaCode: "D0B",
        cellID: "C45C010",
        operatorNumeric: "310410",
        operatorName: "AT&T",
        csq: (14, 99),
        cesq: (9, 38),
        vendorCommands: ["AT+URAT", "AT+UBANDMASK", "AT+UMNOPROF", "AT+UPSV", "AT+UGPIOC"],
        rebootCommands: ["AT+CFUN=15", "AT+CFUN=16"],
        rebootWithBanner: nil,
        powerSavingReportCommand: nil,
        powerSavingEnterURC: nil,
        powerSavingExitURC: nil,
        sleepsInPowerSaving: false,
        interleavedURC: "+UUSIMSTAT: 8",
        searchDelay: .seconds(1),
        registrationDelay: .seconds(5),
        latency: latency(base: 12, sim: 50, radio: .seconds(4))
    )

    /// Nordic nRF9160 with the Serial LTE Modem: `Ready`, radio off at boot, quoted `+CGSN`,
    /// `%XICCID` with a padding `F`, PSM timers in `+CEREG`.
    public static let nrf9160 = SimulatedFamily(
        id: "nrf9160",
        kind: .modem,
        manufacturer: "Nordic Semiconductor ASA",
        model: "nRF9160-SICA",
        revisionLines: ["mfw_nrf9160_1.3.2"],
        identificationLines: ["nRF9160-SICA"],
        imeiBase: "35135881123450",
        serialNumber: nil,
        quotesIMEI: true,
        imsi: "242016000012345",
        iccid: "8947080037110123456F",
        iccidCommand: "AT%XICCID",
        iccidPrefix: "%XICCID",
        baud: .fixed(115_200),
        nominalBaud: 115_200,
        colon: ": ",
        bootNoise: [],
        bootLines: ["Ready"],
        bootLineEnding: "\r\n",
        readyLines: [],
        bootEndsWithOK: false,
        bootDuration: .seconds(2),
        initialFunctionality: 0,
        accessTechnology: 7,
        trackingAreaCode: "0A0B",
        cellID: "01020304",
        operatorNumeric: "24201",
        operatorName: "Telenor",
        csq: (99, 99),
        cesq: (25, 60),
        vendorCommands: ["AT%XSYSTEMMODE", "AT%XBANDLOCK", "AT%XMODEMSLEEP", "AT%XSIM", "AT%XMONITOR", "AT#XSLMVER"],
        rebootCommands: [],
        rebootWithBanner: nil,
        powerSavingReportCommand: "AT%XMODEMSLEEP=1",
        powerSavingEnterURC: "%XMODEMSLEEP: 1,86340000",
        powerSavingExitURC: "%XMODEMSLEEP: 1,0",
        sleepsInPowerSaving: false,
        interleavedURC: "%XSIM: 1",
        searchDelay: .milliseconds(500),
        registrationDelay: .seconds(3),
        latency: latency(base: 6, sim: 25, radio: .seconds(1))
    )

    /// A plain 3GPP TS 27.007 module behind a USB CDC port: any speed, no banner, `+CCID:`.
    public static let generic = SimulatedFamily(
        id: "generic",
        kind: .modem,
        manufacturer: "Generic",
        model: "LPWA-1",
        revisionLines: ["1.0.0"],
        identificationLines: ["Generic LPWA-1 1.0.0"],
        imeiBase: "49015420323750",
        serialNumber: nil,
        quotesIMEI: false,
        imsi: "001010123456789",
        iccid: "89001012345678901234",
        iccidCommand: "AT+CCID",
        iccidPrefix: "+CCID",
        baud: .any,
        nominalBaud: 115_200,
        colon: ": ",
        bootNoise: [],
        bootLines: [],
        bootLineEnding: "\r\n",
        readyLines: [],
        bootEndsWithOK: false,
        bootDuration: .seconds(1),
        initialFunctionality: 1,
        accessTechnology: 7,
        trackingAreaCode: "00C1",
        cellID: "00ABCDEF",
        operatorNumeric: "00101",
        operatorName: "Test PLMN",
        csq: (25, 99),
        cesq: (18, 50),
        vendorCommands: [],
        rebootCommands: ["AT+CFUN=1,1"],
        rebootWithBanner: nil,
        powerSavingReportCommand: nil,
        powerSavingEnterURC: nil,
        powerSavingExitURC: nil,
        sleepsInPowerSaving: false,
        interleavedURC: "+CSCON: 1",
        searchDelay: .milliseconds(300),
        registrationDelay: .seconds(2),
        latency: latency(base: 5, sim: 20, radio: .seconds(1))
    )

    /// A QCDM diagnostic port: opens fine, never says anything.
    public static let diagnostic = SimulatedFamily.nonModem(id: "diag", kind: .silent)

    /// A GNSS port: streams NMEA once a second, ignores AT.
    public static let nmea = SimulatedFamily.nonModem(id: "nmea", kind: .nmea)

    private static func nonModem(id: String, kind: Kind) -> SimulatedFamily {
        var family = SimulatedFamily.generic
        family.id = id
        family.kind = kind
        family.baud = .any
        return family
    }
}
