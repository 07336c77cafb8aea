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
