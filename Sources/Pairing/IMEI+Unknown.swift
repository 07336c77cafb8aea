import DeviceIdentity
import NBGWCore

extension IMEI {
    /// `UNKNOWN_DEVICE` for a module's IMEI that no module registered at this gateway has: the
    /// words of every path (a single bind, a scan, a batch row, the ingest API).
    public static func unknownError(digits: String) -> NBGWError {
        NBGWError(
            .unknownDevice,
            "no module with IMEI \(digits) is registered at this gateway: plug it in, wait until `nbgw modems` "
                + "shows it ready, then scan again"
        )
    }
}
