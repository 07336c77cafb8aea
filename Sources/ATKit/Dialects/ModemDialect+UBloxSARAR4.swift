extension ModemDialect {
    /// u-blox SARA-R410M / R412M (and SARA-R5, whose `<AcT>` use is **unverified**: both 7 and 8
    /// are read as LTE-M).
    ///
    /// Quirks (`docs/at-dialects.md` §2, §4.2, §6.7):
    /// - No reliable boot banner (ubxlib waits ~6 s, then polls `AT`).
    /// - **`<AcT>` 8 means LTE Cat-M1** on early R410M firmware; TAC and cell id are not zero-padded.
    /// - IMEI bare `AT+CGSN`; ICCID `AT+CCID` → `+CCID: <iccid>`.
    /// - RAT: `AT+URAT=<7 Cat-M1|8 NB-IoT|9 GSM>[,<second>]`; bands `AT+UBANDMASK=<0 Cat-M1|1 NB-IoT>,<mask>`.
    ///   Both need `AT+CFUN=0` first and take effect after a reboot (`AT+CFUN=15`), and
    ///   `AT+UMNOPROF` must be set before them.
    public static let ubloxSARAR4: ModemDialect = {
        var dialect = ModemDialect(id: "ublox-sara-r4", name: "u-blox SARA-R410M / R412M / R5")
        dialect.identification = Identification(manufacturers: ["u-blox"], models: ["SARA-R4", "SARA-R5"])
        dialect.urcPatterns = [
            .name("+UUSORD"), .name("+UUSORF"), .name("+UUSOCL"), .name("+UUPSDA"), .name("+UUSIMSTAT"),
            .name("+UFOTASTAT"), .name("+ULWM2MSTAT"), .name("+UUHTTPCR"),
        ]
        dialect.iccidQueries = [ICCIDQuery("AT+CCID", prefix: "+CCID")]
        dialect.accessTechnologyOverrides = [7: .lteM, 8: .lteM]
        dialect.technologies = [.lteM, .nbIoT, .gsm]
        dialect.rebootCommand = ATCommandRequest("AT+CFUN=15", timeout: ATCommandTimeout.reboot)
        dialect.radioAccessCommands = { technologies in
            let codes = technologies.compactMap { technology -> Int? in
                switch technology {
                case .lteM: 7
                case .nbIoT: 8
                case .gsm: 9
                default: nil
                }
            }
            guard !codes.isEmpty, codes.count == technologies.count, codes.count <= 3 else { return nil }
            return [
                ATCommandRequest(
                    "AT+URAT=" + codes.map(String.init).joined(separator: ","),
                    timeout: ATCommandTimeout.configuration
                )
            ]
        }
        dialect.bandCommands = { bands, technology in
            guard !bands.isEmpty, bands.allSatisfy({ (1...64).contains($0) }) else { return nil }
            let rat: Int
            switch technology {
            case .lteM: rat = 0
            case .nbIoT: rat = 1
            default: return nil
            }
            let mask = bands.reduce(UInt64(0)) { $0 | (1 << UInt64($1 - 1)) }
            return [ATCommandRequest("AT+UBANDMASK=\(rat),\(mask)", timeout: ATCommandTimeout.configuration)]
        }
        return dialect
    }()
}
