extension KnownModule {
    /// The modules nbgw knows by USB IDs, with each one's interface map. Sources: `docs/at-dialects.md` §1,
    /// the Linux `option` driver's commit messages (BG95's `usbnet` layouts) and ModemManager's
    /// `77-mm-*-port-types.rules`. `udev-rules/90-nbgw.rules` and the module table of `docs/discovery.md`
    /// are generated from this array: after a change run `swift run nbgw-gen-udev` and commit the result
    /// (`tools/test.sh` runs `nbgw-gen-udev --check`, which names the file that is stale).
    public static let catalogue: [KnownModule] = [
        KnownModule(
            name: "Quectel BG96",
            vendorID: "2c7c",
            productIDs: ["0296"],
            dialectHint: "quectel-bg9x",
            interfaces: [0: .diag, 1: .nmea, 2: .at, 3: .modem]
        ),
        KnownModule(
            name: "Quectel BG95 / BG77",
            vendorID: "2c7c",
            productIDs: ["0700"],
            dialectHint: "quectel-bg9x",
            interfaces: [0: .diag, 1: .nmea, 2: .at, 4: .modem],
            note: """
                "Quectel LPWA Module"; the fourth function follows AT+QCFGEXT="usbnet": "modem" puts a second \
                AT/PPP port on if 04, "ecm" a CDC-ECM network function on if 03/04, "rmnet" QMI on if 03 (no tty)
                """,
            interfaceNotes: [3: "ECM/QMI, no tty"]
        ),
        KnownModule(
            name: "Quectel EG91 / EG95 / EC25",
            vendorID: "2c7c",
            productIDs: ["0191", "0195", "0125"],
            dialectHint: nil,
            interfaces: [0: .diag, 1: .nmea, 2: .at, 3: .modem],
            note: "LTE Cat 1/4 siblings with the BG96 layout; no dedicated dialect (3GPP baseline)"
        ),
        KnownModule(
            name: "SIMCom SIM7000 / SIM7600",
            vendorID: "1e0e",
            productIDs: ["9001"],
            dialectHint: "simcom-sim7000",
            interfaces: [0: .diag, 1: .nmea, 2: .at, 3: .modem, 4: .audio],
            note: "the PID is shared with SIM7100/SIM7600: the hint is a guess the probe's AT+CGMM corrects"
        ),
        KnownModule(
            name: "SIMCom SIM7080G / SIM7070 / SIM7090",
            vendorID: "1e0e",
            productIDs: ["9205"],
            dialectHint: "simcom-sim7080",
            interfaces: [0: .diag, 1: .nmea, 2: .at, 3: .modem],
            note: "default USB layout"
        ),
        KnownModule(
            name: "SIMCom SIM7080G / SIM7070 / SIM7090 (alternate layout)",
            vendorID: "1e0e",
            productIDs: ["9206"],
            dialectHint: "simcom-sim7080",
            interfaces: [0: .diag, 1: .nmea, 2: .at, 5: .modem],
            note: "if 03/04 are not serial functions in this layout",
            interfaceNotes: [3: "not serial", 4: "not serial"]
        ),
        KnownModule(
            name: "u-blox SARA-R410M / R412M",
            vendorID: "05c6",
            productIDs: ["90b2"],
            dialectHint: "ublox-sara-r4",
            interfaces: [:],
            otherInterfaces: .unknown,
            note: """
                enumerates with Qualcomm's VID; the option driver reserves if 01 and if 03 (QMI network), \
                the read sources do not say which remaining tty answers AT, so every one is probed
                """,
            interfaceNotes: [1: "QMI, reserved by option", 3: "QMI, reserved by option"]
        ),
        KnownModule(
            name: "u-blox LARA-R6",
            vendorID: "05c6",
            productIDs: ["908b"],
            dialectHint: nil,
            interfaces: [0: .diag, 1: .at, 2: .modem],
            note: "listed for comparison in docs/at-dialects.md §1",
            interfaceNotes: [3: "unused"]
        ),
        KnownModule(
            name: "Nordic Thingy:91 (nRF9160)",
            vendorID: "1915",
            productIDs: ["9100"],
            dialectHint: "nordic-nrf91",
            interfaces: [0: .at, 3: .trace],
            note: """
                nRF52840 connectivity bridge, CDC ACM: the first port is the nRF9160's UART0 ("Terminal": \
                AT client / Serial LTE Modem), the second its modem trace UART
                """,
            interfaceNotes: [0: "nRF9160 UART0", 3: "nRF9160 UART1"]
        ),
    ]
}
