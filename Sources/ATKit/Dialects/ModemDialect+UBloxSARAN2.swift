extension ModemDialect {
    /// u-blox SARA-N2 (N200/N201/N210/N211/N280): the Hi2115 platform under u-blox firmware.
    ///
    /// As ``quectelBC95`` (9600 baud, `AT+CGSN=1`, `AT+NRB`, `+NPSMR`, cid 0), except that it
    /// prints the space after the colon and its banner word is `u-blox` rather than `Neul` (not a
    /// boot marker here: it is also the `AT+CGMI` answer). ICCID via `AT+NCCID` **(unverified
    /// for N2)**, falling back on `AT+CCID`.
    public static let ubloxSARAN2: ModemDialect = {
        var dialect = ModemDialect.quectelBC95
        dialect.id = "ublox-sara-n2"
        dialect.name = "u-blox SARA-N2 (Hi2115)"
        dialect.identification = Identification(manufacturers: ["u-blox"], models: ["SARA-N2"])
        dialect.bootMarkers = [.lineStart("REBOOT_CAUSE_")]
        dialect.iccidQueries = [ICCIDQuery("AT+NCCID", prefix: "+NCCID"), ICCIDQuery("AT+CCID", prefix: "+CCID")]
        return dialect
    }()
}
