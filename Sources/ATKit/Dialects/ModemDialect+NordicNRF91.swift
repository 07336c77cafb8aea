extension ModemDialect {
    /// Nordic nRF9160 / nRF91x1 behind the AT client or Serial LTE Modem (SLM) firmware.
    ///
    /// Quirks (`docs/at-dialects.md` §2, §5, §6.9):
    /// - The radio is off after boot (`+CFUN: 0`) until the host sends `AT+CFUN=1`.
    /// - SLM prints `Ready` when it boots; there is no modem reboot command (the host resets the SiP).
    /// - `AT+CGSN=1` → `+CGSN: "<imei>"` (quoted); ICCID `AT%XICCID` → `%XICCID: <iccid>`.
    /// - `<AcT>` 7 is LTE-M, 9 NB-IoT. PSM timers come with `+CEREG` at level 5, empty fields as `,,`.
    /// - RAT: `AT%XSYSTEMMODE=<LTE-M>,<NB-IoT>,<GNSS>,<preference>` (only at `AT+CFUN=0` or 4);
    ///   bands `AT%XBANDLOCK=1,"<bitmask>"`; the default bearer is cid 0.
    /// - Sleep reports: `AT%XMODEMSLEEP=1,<min ms>,<max ms>` → `%XMODEMSLEEP: 1,<ms>` when it enters PSM.
    public static let nordicNRF91: ModemDialect = {
        var dialect = ModemDialect(id: "nordic-nrf91", name: "Nordic nRF91 (nRF9160 / nRF91x1)")
        dialect.identification = Identification(manufacturers: ["Nordic"], models: ["nRF91"])
        dialect.urcPatterns = [
            .name("%XSIM"), .name("%XMODEMSLEEP"), .name("%CESQ"), .name("%XT3412"), .name("%NCELLMEAS"),
            .name("%XTIME"), .name("%MDMEV"), .name("#XCARRIEREVT"),
        ]
        dialect.bootMarkers = [.line("Ready")]
        dialect.imeiQuery = .imei
        dialect.iccidQueries = [ICCIDQuery("AT%XICCID", prefix: "%XICCID")]
        dialect.accessTechnologyOverrides = [7: .lteM, 8: .lteM]
        dialect.technologies = [.lteM, .nbIoT]
        dialect.defaultContextID = 0
        dialect.powerSavingReports = [ATCommandRequest("AT%XMODEMSLEEP=1,0,10240")]
        dialect.powerSavingTransition = { urc in
            guard urc.name == "%XMODEMSLEEP" else { return nil }
            let parameters = ATParameterList(urc.parameters)
            // Type 1 is PSM; a sleep time of 0 (or none) marks the end of the sleep.
            guard parameters.int(0) == 1 else { return nil }
            return (parameters.int(1) ?? 0) > 0 ? .entered : .exited
        }
        dialect.radioAccessCommands = { technologies in
            guard !technologies.isEmpty, technologies.allSatisfy({ $0 == .lteM || $0 == .nbIoT }) else { return nil }
            let lteM = technologies.contains(.lteM) ? 1 : 0
            let nbIoT = technologies.contains(.nbIoT) ? 1 : 0
            // Preference: 1 = LTE-M first, 2 = NB-IoT first, 0 = none.
            let preference = technologies.count == 2 ? (technologies[0] == .lteM ? 1 : 2) : 0
            return [
                ATCommandRequest("AT+CFUN=4", timeout: ATCommandTimeout.functionality),
                ATCommandRequest(
                    "AT%XSYSTEMMODE=\(lteM),\(nbIoT),0,\(preference)",
                    timeout: ATCommandTimeout.configuration
                ),
            ]
        }
        dialect.bandCommands = { bands, technology in
            guard technology == .lteM || technology == .nbIoT, !bands.isEmpty,
                bands.allSatisfy({ (1...88).contains($0) })
            else { return nil }
            var bits = [Character](repeating: "0", count: 88)
            for band in bands { bits[88 - band] = "1" }
            return [ATCommandRequest("AT%XBANDLOCK=1,\"\(String(bits))\"", timeout: ATCommandTimeout.configuration)]
        }
        return dialect
    }()
}
