extension ModemDialect {
    /// SIMCom SIM7000 (E/G/A/C): LTE-M, NB-IoT, GSM on the G variant.
    ///
    /// Quirks (`docs/at-dialects.md` §2, §5, §6.5):
    /// - Auto-bauding UART: silent until the host sends `AT`, and the first `AT` only sets the
    ///   speed, so the probe repeats it. `RDY` / `+CFUN: 1` / `+CPIN: READY` / `SMS Ready` only
    ///   appear with a fixed rate (`AT+IPR`≠0).
    /// - `AT+CGMI` → `SIMCOM_Ltd`, `AT+CGMM` → `SIMCOM_SIM7000E`; ICCID `AT+CCID` → **bare** digits.
    /// - RAT: `AT+CNMP=<2 auto|13 GSM|38 LTE|51 GSM+LTE>`, `AT+CMNB=<1 Cat-M|2 NB-IoT|3 both>`.
    /// - Bands: `AT+CBANDCFG="CAT-M",<b>,...` / `"NB-IOT",...`.
    /// - Serving cell: `AT+CPSI?` (RSRP/RSRQ in whole units).
    public static let simcomSIM7000: ModemDialect = {
        var dialect = ModemDialect(id: "simcom-sim7000", name: "SIMCom SIM7000")
        dialect.identification = Identification(manufacturers: ["SIMCOM"], models: ["SIM7000"])
        dialect.urcPatterns = [
            .name("+APP PDP"), .name("*PSUTTZ"), .name("DST"), .name("*PSNWID"), .name("+CPSI"),
            .line("UNDER-VOLTAGE POWER DOWN"), .line("UNDER-VOLTAGE WARNNING"), .line("OVER-VOLTAGE POWER DOWN"),
            .line("OVER-VOLTAGE WARNNING"),
        ]
        dialect.bootMarkers = [.line("RDY")]
        dialect.iccidQueries = [ICCIDQuery("AT+CCID", prefix: "+CCID")]
        dialect.accessTechnologyOverrides = [7: .lteM, 8: .lteM]
        dialect.technologies = [.lteM, .nbIoT, .gsm]
        dialect.rebootCommand = ATCommandRequest("AT+CFUN=1,1", timeout: ATCommandTimeout.reboot)
        dialect.radioAccessCommands = SIMComRadioAccess.commands
        dialect.bandCommands = SIMComRadioAccess.bandCommands
        return dialect
    }()
}

/// The RAT and band setters SIM7000 and SIM7080 share.
enum SIMComRadioAccess {
    static let commands: @Sendable ([RadioTechnology]) -> [ATCommandRequest]? = { technologies in
        guard !technologies.isEmpty, technologies.allSatisfy({ [.lteM, .nbIoT, .gsm].contains($0) }) else { return nil }
        let lte = Set(technologies.filter { $0 != .gsm })
        let preferredMode = technologies.contains(.gsm) ? (lte.isEmpty ? 13 : 51) : 38
        var commands = [ATCommandRequest("AT+CNMP=\(preferredMode)", timeout: ATCommandTimeout.configuration)]
        if !lte.isEmpty {
            let band = lte == [.lteM] ? 1 : lte == [.nbIoT] ? 2 : 3
            commands.append(ATCommandRequest("AT+CMNB=\(band)", timeout: ATCommandTimeout.configuration))
        }
        return commands
    }

    static let bandCommands: @Sendable ([Int], RadioTechnology) -> [ATCommandRequest]? = { bands, technology in
        guard !bands.isEmpty else { return nil }
        let mode: String
        switch technology {
        case .lteM: mode = "CAT-M"
        case .nbIoT: mode = "NB-IOT"
        default: return nil
        }
        let list = bands.map(String.init).joined(separator: ",")
        return [ATCommandRequest("AT+CBANDCFG=\"\(mode)\",\(list)", timeout: ATCommandTimeout.configuration)]
    }
}
