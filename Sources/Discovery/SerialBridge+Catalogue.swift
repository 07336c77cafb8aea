extension SerialBridge {
    /// USB-UART bridges seen on NB-IoT / LTE-M evaluation boards (`docs/at-dialects.md` §1), and on
    /// everything else: their ports are probed by AT only when tagged `ID_NBGW_PROBE=1`, listed in
    /// `[discovery] probe`, or with `[discovery] generic_bridges = "probe"`.
    public static let catalogue: [SerialBridge] = [
        SerialBridge(name: "CP210x", vendorID: "10c4", productIDs: ["ea60", "ea70", "ea71"], drivers: ["cp210x"]),
        SerialBridge(name: "CH340/CH341", vendorID: "1a86", productIDs: ["7523", "5523"], drivers: ["ch341"]),
        SerialBridge(
            name: "FTDI",
            vendorID: "0403",
            productIDs: ["6001", "6010", "6011", "6014", "6015"],
            drivers: ["ftdi_sio"]
        ),
        SerialBridge(name: "Exar/MaxLinear XR21V14xx", vendorID: "04e2", productIDs: nil, drivers: ["xr_serial"]),
        SerialBridge(name: "Prolific PL2303", vendorID: "067b", productIDs: ["2303"], drivers: ["pl2303"]),
        // nRF9160 DK / nRF91x1 DK: the on-board J-Link's virtual COM ports (CDC ACM, so no driver match).
        SerialBridge(name: "SEGGER J-Link OB VCOM", vendorID: "1366", productIDs: nil, drivers: []),
    ]
}
