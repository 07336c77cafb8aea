/// `[discovery] generic_bridges`: what nbgwd does with a generic USB-UART bridge (``SerialBridge``)
/// nobody opted in.
///
/// Why `tagged` is the default: a CP210x, CH340, FTDI or PL2303 is as likely to be a Zigbee stick
/// (the Sonoff ZBDongle-P is a CP2102N), an ESP32 board, an Arduino or a serial barcode scanner as an
/// NB-IoT module, and an `AT` probe at five speeds can upset them. ModemManager's users filed this
/// more than any other complaint, which is why its default filter leaves such bridges alone too.
public enum GenericBridgeMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// Probe a bridge only when a udev rule tags it `ID_NBGW_PROBE=1` or `[discovery] probe` lists it.
    case tagged
    /// Probe every bridge (what nbgw did before: fine on a machine that has only modems behind them).
    case probe
}
