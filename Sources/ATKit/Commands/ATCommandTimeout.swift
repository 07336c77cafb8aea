/// Timeouts for the AT commands that are slow by nature. Everything else answers within
/// milliseconds and uses the session's default (``ATSessionConfiguration/defaultTimeout``).
///
/// Each value is the largest one documented or observed in open-source drivers for the module
/// families we support (see `docs/at-dialects.md` §3 and §10); a dialect may lengthen them.
public enum ATCommandTimeout {
    /// `AT+COPS=?` scans every band for every PLMN: minutes on NB-IoT, where a cell search is slow
    /// and repeated for each coverage enhancement level. Manuals commonly allow 180 s
    /// (u-blox's ublox-cellular-rs uses the same).
    public static let operatorScan: Duration = .seconds(180)

    /// `AT+COPS=0|1,...` (operator selection) may trigger a full registration attempt before the
    /// final result; the same 180 s budget as the scan.
    public static let operatorSelection: Duration = .seconds(180)

    /// `AT+CFUN=<fun>` switches the radio (and on SARA-R4 writes NVM): up to ~15 s on Quectel,
    /// longer on u-blox SARA-R4, whose power-down path can take 35 s. 60 s covers both with margin.
    public static let functionality: Duration = .seconds(60)

    /// `AT+CGATT=1|0` runs the EPS attach/detach procedure (T3410/T3421 retries): TinyGSM allows
    /// BC95 60 s; 75 s leaves room for the full 3GPP TS 24.301 retry schedule (5 × 15 s).
    public static let attach: Duration = .seconds(75)

    /// Vendor reboots (`AT+NRB` on Hi21xx: ~10 s to `REBOOTING`, ~30 s to the final `OK`;
    /// `AT+QRST=1`, `AT+CFUN=1,1`, `AT+CREBOOT`, `AT+CFUN=15`): 45 s.
    public static let reboot: Duration = .seconds(45)

    /// `AT+CGDCONT`, `AT+CPSMS`, `AT+CEDRXS` and vendor band/RAT setters write non-volatile
    /// memory on some modules (BC95 NVM writes take a few seconds).
    public static let configuration: Duration = .seconds(15)
}
