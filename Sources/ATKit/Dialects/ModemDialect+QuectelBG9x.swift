extension ModemDialect {
    /// Quectel BG95 / BG96 / BG77 (LTE-M, NB-IoT, and GSM on BG95-M3/BG96).
    ///
    /// Quirks (`docs/at-dialects.md` §2, §4.2, §6.4):
    /// - Boot: `RDY` (BG95 then `APP RDY`), `+CFUN: 1`, `+CPIN: READY`, `+QUSIM: 1`,
    ///   `+QIND: SMS DONE`.
    /// - **`<AcT>` 8 means LTE Cat-M1** (eMTC), not EC-GSM-IoT; 7 is also LTE-M here.
    /// - IMEI bare `AT+CGSN`; ICCID `AT+QCCID` → `+QCCID: <iccid>`.
    /// - RAT: `AT+QCFG="iotopmode",<0 Cat-M1|1 NB-IoT|2 both>,1`, `AT+QCFG="nwscanseq",...,1`,
    ///   `AT+QCFG="nwscanmode",<0 auto|1 GSM|3 LTE>,1` (the trailing 1 applies at once).
    /// - Bands: `AT+QCFG="band",<gsm>,<catm>,<nb>,1` with hex masks (bit n−1 = band n).
    /// - PSM: `PSM POWER DOWN` when the module enters PSM; no exit URC (`RDY` again on wake-up).
    public static let quectelBG9x: ModemDialect = {
        var dialect = ModemDialect(id: "quectel-bg9x", name: "Quectel BG95 / BG96 / BG77")
        dialect.identification = Identification(manufacturers: ["Quectel"], models: ["BG95", "BG96", "BG77", "BG600"])
        dialect.urcPatterns = [
            .name("+QIURC"), .name("+QSIMSTAT"), .line("PSM POWER DOWN"), .name("+QPSMTIMER"), .name("+QGPSURC"),
        ]
        dialect.bootMarkers = [.line("RDY")]
        dialect.iccidQueries = [ICCIDQuery("AT+QCCID", prefix: "+QCCID")]
        dialect.accessTechnologyOverrides = [7: .lteM, 8: .lteM]
        dialect.technologies = [.lteM, .nbIoT, .gsm]
        dialect.powerSavingTransition = PowerSavingTransition.table(["PSM POWER DOWN": .entered])
        dialect.rebootCommand = ATCommandRequest("AT+CFUN=1,1", timeout: ATCommandTimeout.reboot)
        dialect.radioAccessCommands = { technologies in
            let lte = technologies.filter { $0 == .lteM || $0 == .nbIoT }
            guard !technologies.isEmpty, technologies.allSatisfy({ [.lteM, .nbIoT, .gsm].contains($0) }) else {
                return nil
            }
            let iotMode =
                lte == [.lteM]
                ? 0
                : lte == [.nbIoT]
                    ? 1
                    : 2
            // nwscanseq digits: 01 GSM, 02 Cat-M1, 03 NB-IoT, in preference order.
            let sequence = technologies.map { technology in
                switch technology {
                case .gsm: "01"
                case .lteM: "02"
                default: "03"
                }
            }
            .joined()
            let scanMode = technologies == [.gsm] ? 1 : technologies.contains(.gsm) ? 0 : 3
            return [
                ATCommandRequest("AT+QCFG=\"nwscanmode\",\(scanMode),1", timeout: ATCommandTimeout.configuration),
                ATCommandRequest("AT+QCFG=\"iotopmode\",\(iotMode),1", timeout: ATCommandTimeout.configuration),
                ATCommandRequest("AT+QCFG=\"nwscanseq\",\(sequence),1", timeout: ATCommandTimeout.configuration),
            ]
        }
        dialect.bandCommands = { bands, technology in
            guard technology == .lteM || technology == .nbIoT, !bands.isEmpty,
                bands.allSatisfy({ (1...85).contains($0) })
            else { return nil }
            var mask = [UInt64](repeating: 0, count: 2)
            for band in bands { mask[(band - 1) / 64] |= 1 << UInt64((band - 1) % 64) }
            let hex =
                mask[1] == 0
                ? String(mask[0], radix: 16, uppercase: true)
                : String(mask[1], radix: 16, uppercase: true)
                    + {
                        let low = String(mask[0], radix: 16, uppercase: true)
                        return String(repeating: "0", count: 16 - low.count) + low
                    }()
            // "0" keeps the other RAT's bands unchanged per the BG95 AT manual.
            let fields = technology == .lteM ? "0,\(hex),0" : "0,0,\(hex)"
            return [ATCommandRequest("AT+QCFG=\"band\",\(fields),1", timeout: ATCommandTimeout.configuration)]
        }
        return dialect
    }()
}
