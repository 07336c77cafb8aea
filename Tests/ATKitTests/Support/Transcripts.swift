/// Modem output as it appears on the wire, named after the device that produced it. Reconstructed
/// from published captures and driver fixtures (see `docs/at-dialects.md` §2–3); binary junk is
/// spelled out as bytes.
enum Transcripts {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// Quectel BC95 (Hi2115) after `AT+NRB`, echo on: `REBOOTING`, NULs while the UART restarts,
    /// the ROM banner, the reboot cause, `Neul` with a trailing space, and an `OK` that belongs to
    /// `AT+NRB`. At power-on the same banner arrives with no command pending.
    static let bc95Reboot: [UInt8] =
        bytes("AT+NRB\r\r\nREBOOTING\r\n") + [0x00, 0x00, 0xFF, 0x00]
        + bytes("\r\nBoot: Unsigned\r\nSecurity B.. Verified\r\nProtocol A.. Verified\r\nApps A...... Verified\r\n")
        + bytes("\r\nREBOOT_CAUSE_APPLICATION_AT\r\nNeul \r\nOK\r\n")

    /// Quectel BC95 power-on banner with nothing pending: ends with an unsolicited `OK`.
    static let bc95PowerOn: [UInt8] =
        [0x00]
        + bytes("\r\nBoot: Unsigned\r\nSecurity B.. Verified\r\nProtocol A.. Verified\r\nApps A...... Verified\r\n")
        + bytes("\r\nREBOOT_CAUSE_SECURITY_PMU_POWER_ON_RESET\r\nNeul \r\nOK\r\n")

    /// Quectel BC95: `AT+CEREG?` and `AT+CGSN=1` with Hi2115's missing space after the colon.
    static let bc95Queries: [UInt8] = bytes("\r\n+CEREG:0,1\r\n\r\nOK\r\n")

    /// Quectel BC66 (MT2625) mask-ROM text, LF-CR ordered, then the application's `+CPIN: READY`.
    static let bc66Boot: [UInt8] = bytes(
        "\n\rF1: 0000 0000\n\rV0: 0000 0000 [0001]\n\r00: 0006 000C\n\r01: 0000 0000\n\rU0: 0000 0001 [0000]\n\r"
            + "T0: 0000 00B4\n\rLeaving the BROM\n\r\r\n+CPIN: READY\r\n"
    )

    /// Quectel BC66 `ATI`, echoed as `ATI\r` without LF.
    static let bc66ATI: [UInt8] = bytes("ATI\r\r\nQuectel_Ltd\r\nQuectel_BC66\r\nRevision: BC66NBR01A10\r\n\r\nOK\r\n")

    /// Quectel BG96 power-up on the USB AT port.
    static let bg96Boot: [UInt8] = bytes(
        "\r\nRDY\r\n\r\n+CFUN: 1\r\n\r\n+CPIN: READY\r\n\r\n+QUSIM: 1\r\n\r\n+QIND: SMS DONE\r\n\r\n+QIND: PB DONE\r\n"
    )

    /// Quectel BG96 `AT+CGSN` (bare IMEI) with `+QIND: SMS DONE` arriving in the middle of the answer.
    static let bg96CGSNWithURC: [UInt8] = bytes(
        "AT+CGSN\r\r\n866425038511221\r\n\r\n+QIND: SMS DONE\r\n\r\nOK\r\n"
    )

    /// Quectel BG95: `RDY` then `APP RDY`.
    static let bg95Boot: [UInt8] = bytes("\r\nRDY\r\n\r\nAPP RDY\r\n")

    /// Nordic nRF9160 (AT client), echo off: a registration URC interleaved with the `AT+CEREG?` read.
    static let nrf91CEREGRead: [UInt8] = bytes(
        "\r\n+CEREG: 2,\"0A0B\",\"01020304\",9\r\n"
            + "+CEREG: 5,1,\"0A0B\",\"01020304\",9,,,\"00100110\",\"01011111\"\r\nOK\r\n"
    )

    /// Nordic nRF9160 `AT+CGSN=1` (quoted IMEI) followed by a registration URC after the OK.
    static let nrf91CGSN: [UInt8] = bytes(
        "+CGSN: \"351358811234566\"\r\nOK\r\n+CEREG: 1,\"0A0B\",\"01020304\",9,,,\"00100110\",\"01011111\"\r\n"
    )

    /// SIMCom SIM7080G reset: PPP frame leftovers from the previous session, then the boot URCs.
    static let sim7080Reset: [UInt8] =
        [0x7E, 0xFF, 0x7D, 0x23, 0xC0, 0x21, 0x7D, 0x21, 0x7D, 0x20, 0x7D, 0x20, 0x7E, 0x00]
        + bytes("\r\nRDY\r\n\r\n+CFUN: 1\r\n\r\n+CPIN: READY\r\n\r\nSMS Ready\r\n")

    /// SIMCom SIM7080G `AT+CCID` (bare ICCID) and `AT+CNACT=0,1` whose URC beats the OK.
    static let sim7080CCID: [UInt8] = bytes("AT+CCID\r\r\n89882280666027595366\r\n\r\nOK\r\n")
    static let sim7080CNACT: [UInt8] = bytes("AT+CNACT=0,1\r\r\n+APP PDP: 0,ACTIVE\r\n\r\nOK\r\n")
}
