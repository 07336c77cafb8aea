import Testing

@testable import ATKit

/// The AT pieces of the operator's half: PIN commands, the EMM causes an operator reads, and the
/// masking of secrets in what is logged.
@Suite struct OperatorCommandTests {
    @Test("AT+CPIN= takes 4 to 8 digits and nothing else; its command line holds the PIN")
    func enterPIN() throws {
        #expect(try CPIN.Enter(pin: "1234").command == "AT+CPIN=\"1234\"")
        #expect(try CPIN.Enter(pin: "12345678", newPIN: "4321").command == "AT+CPIN=\"12345678\",\"4321\"")
        for bad in ["123", "123456789", "12a4", "12\"4", ""] {
            #expect(throws: ATCommandArgumentError.self) { try CPIN.Enter(pin: bad) }
        }
    }

    @Test("+CPINR counters are read with or without quotes, and only for the code asked")
    func pinRetries() throws {
        let quoted = ATResponse(command: "AT+CPINR=\"SIM PIN\"", lines: ["+CPINR: \"SIM PIN\",2,3"], final: .ok)
        #expect(try CPINR.Read().parse(quoted) == CPINR.Retries(code: "SIM PIN", remaining: 2, initial: 3))
        let bare = ATResponse(command: "AT+CPINR=\"SIM PIN\"", lines: ["+CPINR: SIM PIN,1"], final: .ok)
        #expect(try CPINR.Read().parse(bare).remaining == 1)
        let other = ATResponse(command: "AT+CPINR=\"SIM PIN\"", lines: ["+CPINR: SIM PUK,10,10"], final: .ok)
        #expect(throws: ATResponseParseError.self) { try CPINR.Read().parse(other) }
    }

    @Test(
        "EMM causes decode to 24.301 Annex A's names and what to do about them",
        arguments: [
            (2, "IMSI unknown in HSS", EMMCause.Persistence.untilSIMChanges),
            (3, "illegal UE", .untilSIMChanges), (6, "illegal ME", .untilSIMChanges),
            (7, "EPS services not allowed", .untilSIMChanges), (11, "PLMN not allowed", .thisLocation),
            (12, "tracking area not allowed", .thisLocation),
            (13, "roaming not allowed in this tracking area", .thisLocation),
            (14, "EPS services not allowed in this PLMN", .thisLocation),
            (15, "no suitable cells in tracking area", .thisLocation), (17, "network failure", .temporary),
            (22, "congestion", .temporary), (25, "not authorized for this CSG", .thisLocation),
        ]
    )
    func emmCauses(value: Int, name: String, persistence: EMMCause.Persistence) {
        let cause = EMMCause(value)
        #expect(cause.name == name && cause.persistence == persistence)
        #expect(cause.description == "#\(value) \(name)")
        #expect(!cause.advice.isEmpty)
    }

    @Test("an unknown EMM cause is shown as its number")
    func unknownCause() {
        #expect(EMMCause(200).name == "EMM cause #200" && EMMCause(200).persistence == .unknown)
    }

    @Test(
        "secrets are masked in logged command lines, the rest left alone",
        arguments: [
            ("AT+CPIN=\"1234\"", "AT+CPIN=***"), ("at+cpin=\"12345678\",\"4321\"", "at+cpin=***"),
            ("AT+CLCK=\"SC\",1,\"1234\"", "AT+CLCK=\"SC\",1,***"), ("AT+CSQ;+CPWD=\"SC\",\"1\",\"2\"", "AT+CSQ;+CPWD=***"),
            ("AT+CPIN2=\"1234\"", "AT+CPIN2=***"), ("AT+CPIN?", "AT+CPIN?"), ("AT+CPINR=\"SIM PIN\"", "AT+CPINR=\"SIM PIN\""),
            ("AT+CGDCONT=1,\"IP\",\"a;b\"", "AT+CGDCONT=1,\"IP\",\"a;b\""), ("AT+CLCK=\"SC\",2", "AT+CLCK=\"SC\",2"),
        ]
    )
    func redaction(command: String, expected: String) {
        #expect(ATCommandRedaction.redact(command) == expected)
    }

    @Test("vendor SIM URCs become SIM status events; +CPIN: becomes the SIM state")
    func simEvents() {
        for line in ["+QSIMSTAT: 1,1", "%XSIM: 1", "+UUSIMSTAT: 1", "+QUSIM: 1"] {
            let urc = ATURC(name: String(line.prefix { $0 != ":" }), line: line)
            guard case .simStatus = ModemEvent(urc: urc, dialect: .ts27007) else {
                Issue.record("\(line) is not a SIM status event")
                continue
            }
        }
        #expect(ModemEvent(urc: ATURC(name: "+CPIN", line: "+CPIN: NOT INSERTED"), dialect: .ts27007) == .sim(.notInserted))
    }
}
