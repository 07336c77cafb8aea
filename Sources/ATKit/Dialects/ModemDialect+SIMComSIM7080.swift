extension ModemDialect {
    /// SIMCom SIM7080G / SIM7070 / SIM7090.
    ///
    /// As ``simcomSIM7000`` (auto-baud, `AT+CCID` bare, `AT+CNMP`/`AT+CMNB`, `AT+CBANDCFG`,
    /// `AT+CPSI?`), plus (`docs/at-dialects.md` §6.6):
    /// - `AT+CGMI` → `SIMCOM_Ltd` or `SIMCOM INCORPORATED`, `AT+CGMM` → `SIMCOM_SIM7080G`.
    /// - A reset can leave PPP frame junk on the line before `RDY`.
    /// - PSM reports: `AT+CPSMSTATUS=1` → `+CPSMSTATUS: ENTER PSM` / `EXIT PSM`.
    /// - App network: `+APP PDP: <idx>,ACTIVE|DEACTIVE`; sockets `+CADATAIND`, `+CASTATE`.
    /// - Reboot: `AT+CREBOOT`.
    public static let simcomSIM7080: ModemDialect = {
        var dialect = ModemDialect.simcomSIM7000
        dialect.id = "simcom-sim7080"
        dialect.name = "SIMCom SIM7080G / SIM7070 / SIM7090"
        dialect.identification = Identification(manufacturers: ["SIMCOM"], models: ["SIM7080", "SIM7070", "SIM7090"])
        dialect.urcPatterns += [.name("+CPSMSTATUS"), .name("+CADATAIND"), .name("+CASTATE")]
        dialect.technologies = [.lteM, .nbIoT]
        dialect.powerSavingReports = [ATCommandRequest("AT+CPSMSTATUS=1")]
        dialect.powerSavingTransition = PowerSavingTransition.table([
            "+CPSMSTATUS: ENTER PSM": .entered, "+CPSMSTATUS: EXIT PSM": .exited,
        ])
        dialect.rebootCommand = ATCommandRequest("AT+CREBOOT", timeout: ATCommandTimeout.reboot)
        return dialect
    }()
}
