extension ModemDialect {
    /// Quectel BC66 / BC26 (MediaTek MT2625).
    ///
    /// Quirks (`docs/at-dialects.md` §2, §5, §6.2):
    /// - Boot: MediaTek mask-ROM text with LF-CR line ends ending in `Leaving the BROM`, then
    ///   `+CPIN: READY`. The UART auto-bauds on the first `AT` after boot.
    /// - Identification via `ATI` → `Quectel_Ltd` / `Quectel_BC66` / `Revision: ...`; `AT+CGMI`
    ///   and `AT+CGMM` answer the same strings.
    /// - IMEI `AT+CGSN=1`; ICCID `AT+QCCID` → `+QCCID: <iccid>`.
    /// - APN of the attach bearer: `AT+QCGDEFCONT="IP","<apn>"` (applied after `AT+QRST=1`).
    /// - Bands: `AT+QBAND=<count>,<b1>,...`; PSM events: `AT+QNBIOTEVENT=1,1` →
    ///   `+QNBIOTEVENT: "ENTER PSM"` / `"EXIT PSM"` **(URC text unverified)**.
    public static let quectelBC66: ModemDialect = {
        var dialect = ModemDialect(id: "quectel-bc66", name: "Quectel BC66 / BC26 (MT2625)")
        dialect.identification = Identification(manufacturers: ["Quectel"], models: ["BC66", "BC26"])
        dialect.urcPatterns = [
            .name("+QNBIOTEVENT"), .name("+QATWAKEUP"), .name("+IP"), .name("+QLWURC"), .name("+QLWREG"),
            .name("+QIURC"),
        ]
        dialect.bootMarkers = [.line("Leaving the BROM")]
        dialect.imeiQuery = .imei
        dialect.iccidQueries = [ICCIDQuery("AT+QCCID", prefix: "+QCCID")]
        dialect.accessTechnologyOverrides = [7: .lteM, 8: .lteM]
        dialect.technologies = [.nbIoT]
        dialect.powerSavingReports = [ATCommandRequest("AT+QNBIOTEVENT=1,1")]
        dialect.powerSavingTransition = PowerSavingTransition.table([
            "+QNBIOTEVENT: \"ENTER PSM\"": .entered, "+QNBIOTEVENT: \"EXIT PSM\"": .exited,
        ])
        dialect.rebootCommand = ATCommandRequest("AT+QRST=1", timeout: ATCommandTimeout.reboot)
        dialect.radioAccessCommands = { technologies in technologies == [.nbIoT] ? [] : nil }
        dialect.bandCommands = { bands, technology in
            guard technology == .nbIoT else { return nil }
            let list = ([String(bands.count)] + bands.map(String.init)).joined(separator: ",")
            return [ATCommandRequest("AT+QBAND=\(list)", timeout: ATCommandTimeout.configuration)]
        }
        dialect.apnCommands = { context throws(ATCommandArgumentError) in
            // Validates the APN the same way +CGDCONT does.
            _ = try CGDCONT.Set(context)
            return [
                ATCommandRequest(
                    "AT+QCGDEFCONT=\"\(context.type.rawValue)\",\"\(context.apn ?? "")\"",
                    timeout: ATCommandTimeout.configuration
                )
            ]
        }
        return dialect
    }()
}
