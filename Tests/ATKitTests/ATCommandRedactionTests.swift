import Testing

@testable import ATKit

/// ``ATCommandRedaction`` on the lines a module reads as secret commands but a literal `+CPIN=`
/// search does not: spaces before `=`, lower case, `;`-joined and basic-command prefixes.
@Suite struct ATCommandRedactionTests {
    @Test(
        "a secret is masked however the line spells its command",
        arguments: [
            ("AT+CPIN = \"1234\"", "AT+CPIN =***"), ("at+cpin=\"1234\"", "at+cpin=***"),
            ("ATE0+CPIN=\"1234\"", "ATE0+CPIN=***"), ("AT+CSQ ; +CPIN = \"1234\"", "AT+CSQ ; +CPIN =***"),
            ("AT+CLCK = \"SC\",1,\"1234\"", "AT+CLCK = \"SC\",1,***"), ("AT + CPIN=\"1234\"", "AT + CPIN=***"),
            ("AT+C PIN=\"1234\"", "AT+C PIN=***"), ("AT+CPIN=1234", "AT+CPIN=***"), ("AT^CPIN=\"1234\"", "AT^CPIN=***"),
            ("AT+CPIN=\"1234\";+CSQ", "AT+CPIN=***;+CSQ"), ("AT+CPIN=\"1234\" ;+CSQ", "AT+CPIN=*** ;+CSQ"),
            ("AT+CPWD=\"SC\",\"1234\",\"5678\";+CPIN=\"1234\"", "AT+CPWD=***;+CPIN=***"),
            ("AT+QPINC=\"SC\",\"1234\"", "AT+QPINC=\"SC\",***"), ("AT+CPIN2 = \"1234\"", "AT+CPIN2 =***"),
            ("ATE0V1;+cpinc=\"1234\"", "ATE0V1;+cpinc=***"), ("AT+SPIC=\"1234\"", "AT+SPIC=***"),
        ]
    )
    func masked(command: String, expected: String) {
        let redacted = ATCommandRedaction.redact(command)
        #expect(redacted == expected)
        #expect(!redacted.contains("1234") && !redacted.contains("5678"))
        #expect(ATCommandRedaction.containsSecret(command))
    }

    @Test(
        "a line the reader cannot read is masked from the = after a secret command's name on",
        arguments: [
            ("AT+CPIN=\"1234", "AT+CPIN=***"), ("AT+CPIN = \"12\\\"34\"", "AT+CPIN =***"),
            ("AT+CSQ+CPIN=\"1234\"", "AT+CSQ+CPIN=***"), ("AT+CPIN\"1234\"", "AT+CPIN***"),
            ("AT+cP In=\"1234\"\t", "AT+cP In=***"), ("A T+CPIN=\"1234\"", "A T+CPIN=***"),
            ("AT+CPIN=\"1234\"é", "AT+CPIN=***"), ("AT+X=1,+CPIN=\"1234\"", "AT+X=1,+CPIN=***"),
            ("AT+CPIN\u{329}=\"1234\"", "AT+CPIN\u{329}=***"),
        ]
    )
    func unreadable(command: String, expected: String) {
        #expect((try? ATCommandLine(command)) == nil, "the case is meant to be unreadable")
        #expect(ATCommandRedaction.redact(command) == expected)
    }

    @Test(
        "a secret command's name in another command's arguments masks them all",
        arguments: [
            ("ATD+CPIN=\"1234\"", "ATD***"), ("AT+CGDCONT=1,\"IP\",\"+CPIN=1234\"", "AT+CGDCONT=***"),
            ("ATD1234;+CSQ", "ATD1234;+CSQ"),
        ]
    )
    func inArguments(command: String, expected: String) {
        #expect(ATCommandRedaction.redact(command) == expected)
    }

    @Test(
        "lines without a secret come back byte for byte",
        arguments: [
            "AT+CPIN?", "AT+CPIN=?", "AT+CPIN", "AT+CPIN=", "AT+CPINR=\"SIM PIN\"", "at + cpin ?", "AT+CLCK=\"SC\",2",
            "AT+CGDCONT=1,\"IP\",\"a;b\"", "AT+CSQ\"", "ATE0V1", "hello", "", "AT+X=\"é\u{301}\"",
        ]
    )
    func unchanged(command: String) {
        #expect(Array(ATCommandRedaction.redact(command).utf8) == Array(command.utf8))
        #expect(!ATCommandRedaction.containsSecret(command))
    }
}
