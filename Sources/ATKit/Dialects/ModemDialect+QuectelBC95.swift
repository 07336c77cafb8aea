extension ModemDialect {
    /// Quectel BC95 / BC95-G / BC35-G / BC28 / BC68 (HiSilicon Hi2110/Hi2115, "Neul" firmware).
    ///
    /// Quirks (`docs/at-dialects.md` §2, §3, §5, §6.1):
    /// - UART only, **9600 baud**; the low-power UART drops the first bytes while the module sleeps
    ///   in PSM, so the probe repeats `AT`.
    /// - No space after the colon: `+CEREG:0,1`, `+CSQ:18,99`, `+CGSN:86...`.
    /// - `AT+CGSN` answers the product serial number; the IMEI needs `AT+CGSN=1`.
    /// - ICCID: `AT+NCCID` → `+NCCID:<iccid>`.
    /// - Boot: ROM banner, `REBOOT_CAUSE_<cause>`, `Neul`, then an `OK` with nothing pending.
    /// - NB-IoT only; bands with `AT+NBAND=<b>,...` (only at `AT+CFUN=0`); a single PDP context, cid 0.
    /// - PSM reports: `AT+NPSMR=1` → `+NPSMR:1` (entered) / `+NPSMR:0` (left).
    public static let quectelBC95: ModemDialect = {
        var dialect = ModemDialect(id: "quectel-bc95", name: "Quectel BC95 / BC95-G (Hi2115)")
        dialect.identification = Identification(manufacturers: ["Quectel"], models: ["BC95", "BC35", "BC28", "BC68"])
        dialect.baudRate = 9600
        dialect.urcPatterns = [
            .name("+NSONMI"), .name("+NNMI"), .name("+NSMI"), .name("+QLWEVTIND"), .name("+NPINGERR"),
        ]
        dialect.bootMarkers = [.lineStart("REBOOT_CAUSE_"), .line("Neul")]
        dialect.imeiQuery = .imei
        dialect.iccidQueries = [ICCIDQuery("AT+NCCID", prefix: "+NCCID")]
        dialect.accessTechnologyOverrides = [7: .lteM, 8: .lteM]
        dialect.technologies = [.nbIoT]
        dialect.defaultContextID = 0
        dialect.powerSavingReports = [ATCommandRequest("AT+NPSMR=1")]
        dialect.powerSavingTransition = PowerSavingTransition.table(["+NPSMR:1": .entered, "+NPSMR:0": .exited])
        dialect.rebootCommand = ATCommandRequest("AT+NRB", timeout: ATCommandTimeout.reboot)
        dialect.radioAccessCommands = { technologies in technologies == [.nbIoT] ? [] : nil }
        dialect.bandCommands = { bands, technology in
            guard technology == .nbIoT, !bands.isEmpty else { return nil }
            return [
                ATCommandRequest(
                    "AT+NBAND=" + bands.map(String.init).joined(separator: ","),
                    timeout: ATCommandTimeout.configuration
                )
            ]
        }
        return dialect
    }()
}
