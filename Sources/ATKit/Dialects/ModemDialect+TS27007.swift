extension ModemDialect {
    /// The 3GPP TS 27.007 baseline: what any module that is not in the ``catalogue`` gets.
    ///
    /// 115200 baud, `AT+CGSN` for the IMEI, `AT+CCID` then `AT+ICCID` for the ICCID (the two most
    /// common vendor spellings), `+CGDCONT` on cid 1, `<AcT>` read as 27.007 §7.3 says, no vendor
    /// URCs, no way to set RAT or bands.
    public static let ts27007 = ModemDialect(id: "3gpp", name: "3GPP TS 27.007 baseline")
}
