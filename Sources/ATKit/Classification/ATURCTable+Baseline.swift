extension ATURCTable {
    /// URCs every module is expected to send: the 3GPP TS 27.007 / 27.005 ones plus the boot and
    /// status markers shared by the module families in `docs/at-dialects.md`. Dialects add their own.
    public static let ts27007Baseline = ATURCTable([
        // Registration (27.007 §7.2 +CREG, §10.1.20 +CGREG, §10.1.22 +CEREG, and +C5GREG):
        // the URC drops the leading <n> that the read response (AT+CEREG?) carries.
        .name("+CREG", readResponseSettingRange: 0...3),
        .name("+CGREG", readResponseSettingRange: 0...4),
        .name("+CEREG", readResponseSettingRange: 0...5),
        .name("+C5GREG", readResponseSettingRange: 0...5),
        // Signalling connection status (27.007 +CSCON): URC `+CSCON: <mode>`, read `<n>,<mode>`.
        .name("+CSCON", readResponseSettingRange: 0...3),
        // SIM state: not a URC in 27.007 §8.3, but SIMCom, Quectel and BC66 print `+CPIN: READY`
        // unsolicited after boot and after PIN entry.
        .name("+CPIN"),
        // Time zone reporting (27.007 +CTZR).
        .name("+CTZV"), .name("+CTZE"), .name("+CTZEU"),
        // Packet domain events (27.007 §10.1.19 +CGEREP).
        .name("+CGEV"),
        // Indicator events (27.007 §8.10 +CMER).
        .name("+CIEV"),
        // eDRX parameters (27.007 +CEDRXS).
        .name("+CEDRXP"),
        // Calls (27.007 +CRC, V.250 RING).
        .name("+CRING"), .line("RING"),
        // USSD (27.007 +CUSD).
        .name("+CUSD"),
        // SMS (27.005 §3.4.1 +CNMI): +CMT and +CBM are followed by the message on the next line.
        .name("+CMTI"), .name("+CMT", trailingLineCount: 1), .name("+CBM", trailingLineCount: 1), .name("+CDSI"),
        // Functionality level announced after boot by Quectel and SIMCom (`+CFUN: 1`).
        .name("+CFUN"),
        // Quectel status indications (`+QIND: SMS DONE`, `+QIND: PB DONE`), SIM detect (`+QUSIM: 1`),
        // Hi2115 PSM status (`+NPSMR:1`), and release assistance (`+QNTRELEASE`).
        .name("+QIND"), .name("+QUSIM"), .name("+NPSMR"), .name("+QNTRELEASE"),
        // Boot markers: Quectel/SIMCom `RDY`, BG95 `APP RDY`, Cinterion `^SYSSTART`, SIMCom `SMS Ready`,
        // Hi2115 (BC95 family) `REBOOT_CAUSE_<cause>` then `Neul` (sometimes with a trailing space,
        // which the classifier trims).
        .line("RDY"), .line("APP RDY"), .lineStart("^SYSSTART"), .line("SMS Ready"), .lineStart("REBOOT_CAUSE_"),
        .line("Neul"),
        // Power-down notices (Quectel `POWERED DOWN`, SIMCom `NORMAL POWER DOWN`).
        .line("POWERED DOWN"), .line("NORMAL POWER DOWN"),
    ])
}
