import ATKit
import Testing

@testable import Gateway

/// Which commands an operator may send on a supervised module's session without --force.
@Suite struct SupervisedCommandPolicyTests {
    @Test(
        "commands that change how the module talks, take it off the air or restart it are refused",
        arguments: [
            "ATZ", "AT&F", "ATE1", "ATE", "ATV0", "ATQ1", "AT+IPR=9600", "AT+ICF=3", "AT+IFC=2,2", "ATS3=10",
            "AT+CMUX=0", "AT+CFUN=0", "AT+CFUN=4", "AT+CFUN=1,1", "AT+CFUN=15", "AT+CMEE=0", "AT+CEREG=0",
            "AT+COPS=2", "AT+CGATT=0", "AT+NRB", "AT+QRST=1", "AT+CREBOOT", "AT+QPOWD", "at+ipr=115200",
            "AT+CSQ;+CFUN=0", "AT + IPR=9600",
        ]
    )
    func refused(command: String) {
        #expect(SupervisedCommandPolicy.refusal(for: command, dialect: .ts27007) != nil, "\(command)")
    }

    @Test(
        "reads, tests and harmless settings pass",
        arguments: [
            "AT", "AT+CSQ", "AT+CESQ", "AT+CEREG?", "AT+CPIN?", "AT+IPR?", "AT+IPR=?", "AT+CMUX=?", "AT+CFUN?",
            "AT+CFUN=1", "AT+CGDCONT?", "AT+COPS=?", "ATI", "AT+CGDCONT=1,\"IP\",\"a;+CFUN=0\"", "AT+CPSMS?",
        ]
    )
    func allowed(command: String) {
        #expect(SupervisedCommandPolicy.refusal(for: command, dialect: .ts27007) == nil, "\(command)")
    }

    @Test("a dialect's own reboot command is refused on that dialect")
    func dialectReboot() {
        #expect(SupervisedCommandPolicy.refusal(for: "AT+QRST=1", dialect: .quectelBC66)?.contains("reboot") == true)
    }
}

/// The policy on the line as the module reads it (ITU-T V.250): every command of the line by its
/// name and first argument, whatever follows or however it is spelled.
@Suite struct SupervisedCommandLineReadingTests {
    @Test(
        "forms a whole-line match let through are refused: optional parameters, basic commands run together",
        arguments: [
            "AT+CFUN=0,0", "AT+CFUN=4,0", "ATE1V0", "ATV0E0", "AT+CSQ;+CFUN=0,1", "ATE0V0", "ATQ1E0", "ATZE0", "ATE0Z",
            "AT&F0E0", "AT+COPS=2,0", "AT+CMEE=00", "AT+CFUN=01,1", "ATS03=13", "ATE0+CFUN=0",
        ]
    )
    func formerlyMissed(command: String) {
        #expect(SupervisedCommandPolicy.refusal(for: command, dialect: .ts27007) != nil, "\(command)")
    }

    @Test(
        "what the policy cannot judge from its first value, a data call and the other radio-off levels are refused",
        arguments: [
            "AT+CEREG=", "AT+CMEE", "AT+COPS=,2", "AT+CGATT=", "AT+CFUN=", "AT+CFUN", "AT+CFUN=1,", "AT+CFUN=40",
            "AT+CFUN=20", "AT+CFUN=2", "AT+CFUN=99999999999999999999", "ATE99999999999999999999", "ATV", "ATD*99#",
            "AT+CGDATA=\"PPP\",1",
        ]
    )
    func refusedByValue(command: String) {
        #expect(SupervisedCommandPolicy.refusal(for: command, dialect: .ts27007) != nil, "\(command)")
    }

    @Test(
        "what was refused before still is, spelled with spaces, in lower case or behind another command",
        arguments: [
            "at+cfun = 4", "ATS3=10E0", "AT+CGATT = 0", "AT+CEREG = 0", "AT+CFUN=16,0", "AT+CFUN=1,1,0", "AT+C FUN=0",
            "ATS 3=10", "AT+CMUX = 0", "AT + CFUN=4", "AT+CSQ ; +CFUN = 0", "AT+CPWROFF", "AT+QPOWD=1", "AT+CPOWD=1",
            "ATZ", "AT&F0", "ATS3=10", "ATS4=10",
        ]
    )
    func stillRefused(command: String) {
        #expect(SupervisedCommandPolicy.refusal(for: command, dialect: .ts27007) != nil, "\(command)")
    }

    @Test(
        "reads, tests and harmless settings still pass, however spelled",
        arguments: [
            "AT+CFUN?", "AT+CFUN=?", "AT+CFUN=1", "ATE0", "ATI", "AT+CSQ", "ATS3?", "ATS3=?", "AT+CFUN = 1 , 0",
            "at+cfun=01", "ATE0V1Q0", "ATQ", "ATQ0", "ATV1", "AT+COPS=0", "AT+COPS=3,2", "AT+CEREG=5", "AT+CMEE=1",
            "AT+CGATT=1", "AT+CSQ;+CEREG?;+CESQ", "AT%XSYSTEMMODE=1,0,0,0", "AT+QCFG=\"nwscanmode\",3,1",
            "AT+CPIN=\"1234\"", "AT+CPSMS=1,,,\"00100001\",\"00000011\"", "AT+CGDCONT=1,\"IP\",\"a;+CFUN=0\"", "ATS0=0",
            "AT+IPR?", "at + ipr = ?", "AT+CMUX?", "ATE?", "AT+CGDATA=?",
        ]
    )
    func allowed(command: String) {
        #expect(SupervisedCommandPolicy.refusal(for: command, dialect: .ts27007) == nil, "\(command)")
    }

    @Test("the reason names the refused command of the line as written, upper-cased")
    func namesTheCommand() throws {
        let reason = try #require(SupervisedCommandPolicy.refusal(for: "ATE0V0", dialect: .ts27007))
        #expect(reason.hasPrefix("ATV0 switches to numeric result codes"))
        let joined = try #require(SupervisedCommandPolicy.refusal(for: "AT+CSQ ; +cfun = 4,0", dialect: .ts27007))
        #expect(joined == "AT+CFUN = 4,0 turns the radio off under the supervisor (it would turn it on again)")
    }

    @Test("a dialect's reboot command is read the same way: spaces, case and leading zeros do not hide it")
    func rebootReadTheSameWay() {
        for command in ["AT+QRST = 01", "at+qrst=1"] {
            let reason = SupervisedCommandPolicy.refusal(for: command, dialect: .quectelBC66)
            #expect(reason?.contains("\(ModemDialect.quectelBC66.name)'s reboot command") == true, "\(command)")
        }
        #expect(SupervisedCommandPolicy.refusal(for: "AT + NRB", dialect: .quectelBC95)?.contains("reboot") == true)
        let bg95 = SupervisedCommandPolicy.refusal(for: "AT+CFUN=1,01", dialect: .quectelBG9x)
        #expect(bg95?.contains("\(ModemDialect.quectelBG9x.name)'s reboot command") == true)
    }

    @Test("a line the reader cannot read is refused with the column and what is wrong, never the line itself")
    func unreadableLinesAreRefused() throws {
        for line in ["AT+CPIN=\"1234", "A T+CFUN=0", "AT+CFUN=0?", "AT+CSQ+CFUN=0", "AT+CFUN=\"0\"x", "hello"] {
            let reason = try #require(SupervisedCommandPolicy.refusal(for: line, dialect: .ts27007), "\(line)")
            #expect(reason.hasPrefix("the line cannot be read as V.250 AT commands (column "), "\(reason)")
            #expect(!reason.contains("1234") && !reason.uppercased().contains("CFUN"), "\(reason)")
        }
        #expect(
            SupervisedCommandPolicy.refusal(for: "AT+CPIN=\"1234", dialect: .ts27007)
                == "the line cannot be read as V.250 AT commands (column 9: a quoted string that is not closed) and is "
                + "not sent unchecked (correct it if it is a typo)"
        )
    }
}
