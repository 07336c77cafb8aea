import ATKit
import Testing

/// Framing and classification together, fed one byte at a time with device transcripts.
@Suite struct TranscriptReplayTests {
    typealias Outcome = DialogReplayer.Outcome

    @Test func bc95RebootBannerBelongsToNRBIncludingItsOK() {
        var replay = DialogReplayer()
        replay.send("AT+NRB")
        replay.receive(Transcripts.bc95Reboot)
        #expect(
            replay.outcomes == [
                .urc("REBOOT_CAUSE_APPLICATION_AT"),
                .urc("Neul"),
                .response(
                    command: "AT+NRB",
                    lines: [
                        "REBOOTING", "Boot: Unsigned", "Security B.. Verified", "Protocol A.. Verified",
                        "Apps A...... Verified",
                    ],
                    final: .ok
                ),
            ]
        )
    }

    @Test func bc95PowerOnBannerEndsWithAnUnsolicitedOK() {
        var replay = DialogReplayer()
        replay.receive(Transcripts.bc95PowerOn)
        replay.send("AT+CEREG?")
        replay.receive(Transcripts.bc95Queries)
        #expect(
            replay.outcomes == [
                .text("Boot: Unsigned"), .text("Security B.. Verified"), .text("Protocol A.. Verified"),
                .text("Apps A...... Verified"), .urc("REBOOT_CAUSE_SECURITY_PMU_POWER_ON_RESET"), .urc("Neul"),
                .unsolicitedFinal(.ok),
                .response(command: "AT+CEREG?", lines: ["+CEREG:0,1"], final: .ok),
            ]
        )
    }

    @Test func bc66BROMTextWithLFCRIsUnsolicitedTextAndATIIsMultiLine() {
        var replay = DialogReplayer()
        replay.receive(Transcripts.bc66Boot)
        replay.send("ATI")
        replay.receive(Transcripts.bc66ATI)
        #expect(
            replay.outcomes == [
                .text("F1: 0000 0000"), .text("V0: 0000 0000 [0001]"), .text("00: 0006 000C"), .text("01: 0000 0000"),
                .text("U0: 0000 0001 [0000]"), .text("T0: 0000 00B4"), .text("Leaving the BROM"),
                .urc("+CPIN: READY"),
                .response(
                    command: "ATI",
                    lines: ["Quectel_Ltd", "Quectel_BC66", "Revision: BC66NBR01A10"],
                    final: .ok
                ),
            ]
        )
    }

    @Test func bg96BootURCsThenCGSNWithURCInTheMiddle() {
        var replay = DialogReplayer()
        replay.receive(Transcripts.bg96Boot)
        replay.send("AT+CGSN")
        replay.receive(Transcripts.bg96CGSNWithURC)
        #expect(
            replay.outcomes == [
                .urc("RDY"), .urc("+CFUN: 1"), .urc("+CPIN: READY"), .urc("+QUSIM: 1"), .urc("+QIND: SMS DONE"),
                .urc("+QIND: PB DONE"),
                .urc("+QIND: SMS DONE"),
                .response(command: "AT+CGSN", lines: ["866425038511221"], final: .ok),
            ]
        )
    }

    @Test func bg95AnnouncesAppReady() {
        var replay = DialogReplayer()
        replay.receive(Transcripts.bg95Boot)
        #expect(replay.outcomes == [.urc("RDY"), .urc("APP RDY")])
    }

    @Test func nrf91RegistrationURCInterleavedWithCEREGRead() {
        var replay = DialogReplayer()
        replay.send("AT+CEREG?")
        replay.receive(Transcripts.nrf91CEREGRead)
        replay.send("AT+CGSN=1")
        replay.receive(Transcripts.nrf91CGSN)
        #expect(
            replay.outcomes == [
                .urc("+CEREG: 2,\"0A0B\",\"01020304\",9"),
                .response(
                    command: "AT+CEREG?",
                    lines: ["+CEREG: 5,1,\"0A0B\",\"01020304\",9,,,\"00100110\",\"01011111\""],
                    final: .ok
                ),
                .response(command: "AT+CGSN=1", lines: ["+CGSN: \"351358811234566\""], final: .ok),
                .urc("+CEREG: 1,\"0A0B\",\"01020304\",9,,,\"00100110\",\"01011111\""),
            ]
        )
    }

    @Test func sim7080ResetJunkDoesNotHideTheBootURCs() {
        var replay = DialogReplayer()
        replay.receive(Transcripts.sim7080Reset)
        #expect(replay.outcomes.count == 5)
        if case .text(let junk) = replay.outcomes.first {
            #expect(junk.contains("\u{FFFD}"))
        } else {
            Issue.record("expected the PPP junk as unsolicited text, got \(replay.outcomes)")
        }
        #expect(
            Array(replay.outcomes.dropFirst()) == [
                .urc("RDY"), .urc("+CFUN: 1"), .urc("+CPIN: READY"), .urc("SMS Ready"),
            ]
        )
    }

    @Test func sim7080BareICCIDAndAppPDPURCBeforeOK() {
        var replay = DialogReplayer()
        replay.send("AT+CCID")
        replay.receive(Transcripts.sim7080CCID)
        replay.send("AT+CNACT=0,1")
        replay.receive(Transcripts.sim7080CNACT)
        #expect(
            replay.outcomes == [
                .response(command: "AT+CCID", lines: ["89882280666027595366"], final: .ok),
                .unrecognisedURC("+APP PDP: 0,ACTIVE"),
                .response(command: "AT+CNACT=0,1", lines: [], final: .ok),
            ]
        )
    }

    @Test func promptCommandsSeeTheirPromptWithoutTerminator() {
        var replay = DialogReplayer()
        replay.send(ATCommandRequest("AT+QISEND=0,5", payload: Array("hello".utf8)))
        replay.receive(Transcripts.bytes("AT+QISEND=0,5\r\r\n> "))
        replay.receive(Transcripts.bytes("hello\r\nSEND OK\r\n"))
        replay.send(ATCommandRequest("AT+USOST=0,\"10.0.0.1\",7,2", payload: [0x01, 0x02], prompt: .at))
        replay.receive(Transcripts.bytes("\r\n@"))
        replay.receive(Transcripts.bytes("\r\n+USOST: 0,2\r\n\r\nOK\r\n"))
        #expect(
            replay.outcomes == [
                .prompt("> "),
                .response(command: "AT+QISEND=0,5", lines: [], final: .sendOK),
                .prompt("@"),
                .response(command: "AT+USOST=0,\"10.0.0.1\",7,2", lines: ["+USOST: 0,2"], final: .ok),
            ]
        )
    }
}
