import ATKit
import Testing

@Suite struct ATLineClassifierTests {
    let classifier = ATLineClassifier()

    private func pending(_ command: String) -> ATResponseExpectation {
        ATCommandRequest(command).expectation
    }

    private func isInformation(_ result: ATLineClass) -> Bool {
        if case .information = result { true } else { false }
    }

    private func isURC(_ result: ATLineClass) -> Bool {
        if case .urc = result { true } else { false }
    }

    // MARK: Ambiguous +CEREG / +CGREG / +CREG / +CSCON (read response vs URC, resolved by shape)

    @Test(arguments: [
        // Read responses to AT+CEREG? start with <n>,<stat> (3GPP TS 27.007 §10.1.22).
        ("AT+CEREG?", "+CEREG: 2,1", true),
        ("AT+CEREG?", "+CEREG:0,1", true),  // Hi2115, no space
        ("AT+CEREG?", "+CEREG: 2,1,\"1A2B\",\"01A2D101\",9", true),
        ("AT+CEREG?", "+CEREG: 2,1, 1F00, 79D903 ,7", true),  // ModemManager fixture spacing
        ("AT+CEREG?", "+CEREG: 5,1,\"0A0B\",\"01020304\",9,,,\"00100110\",\"01011111\"", true),
        ("AT+CEREG?", "+CEREG: 2,10", true),  // two-digit stat tolerated
        // URCs start with <stat>: bare, or followed by a quoted <tac>.
        ("AT+CEREG?", "+CEREG: 5", false),
        ("AT+CEREG?", "+CEREG: 1,\"1A2B\",\"01A2D101\",9", false),
        ("AT+CEREG?", "+CEREG: 2,,,", false),
        ("AT+CEREG?", "+CEREG: 6,1", false),  // 6 is no valid <n>
        // Set commands print no +CEREG: lines, so any +CEREG: is the URC; test form is information.
        ("AT+CEREG=2", "+CEREG: 2,1", false),
        ("AT+CEREG=?", "+CEREG: (0-5)", true),
        ("AT+CREG?", "+CREG: 0,1", true),
        ("AT+CREG?", "+CREG: 1,\"00C3\",\"0000E7C1\",7", false),
        ("AT+CGREG?", "+CGREG: 2,5,\"00C3\",\"0000E7C1\",7", true),
        ("AT+CGREG?", "+CGREG: 5", false),
        ("AT+CSCON?", "+CSCON: 0,1", true),
        ("AT+CSCON?", "+CSCON: 1", false),
        // Another command in flight: always the URC.
        ("AT+CGMI", "+CEREG: 2,1", false),
    ])
    func resolvesRegistrationLinesByShape(command: String, line: String, isReadResponse: Bool) {
        let result = classifier.classify(line, pending: pending(command))
        #expect(isInformation(result) == isReadResponse, "\(line) during \(command): \(result)")
        #expect(isURC(result) == !isReadResponse, "\(line) during \(command): \(result)")
    }

    @Test func registrationURCWithNothingPendingIsURC() {
        #expect(classifier.classify("+CEREG: 1", pending: nil) == .urc(ATURC(name: "+CEREG", line: "+CEREG: 1")))
    }

    // MARK: Echo, finals, bare text

    @Test(arguments: ["AT+CGMI", "at+cgmi", "AT+CGMI  "])
    func echoOfTheCommandIsEcho(line: String) {
        #expect(classifier.classify(line, pending: pending("AT+CGMI")) == .echo)
    }

    @Test func echoIsRecognisedEvenForBareTextCommands() {
        // Without the echo rule, "AT+CIMI" would be taken for the IMSI.
        #expect(classifier.classify("AT+CIMI", pending: pending("AT+CIMI")) == .echo)
        #expect(classifier.classify("460001234567890", pending: pending("AT+CIMI")) == .information("460001234567890"))
    }

    @Test func finalResultCompletesThePendingCommand() {
        #expect(classifier.classify("OK", pending: pending("AT")) == .final(.ok))
        #expect(
            classifier.classify("+CME ERROR: 10", pending: pending("AT+CIMI")) == .final(.cmeError(code: 10, text: nil))
        )
    }

    @Test func finalResultWithNothingPendingIsUnsolicited() {
        #expect(classifier.classify("OK", pending: nil) == .unsolicitedFinal(.ok))
    }

    @Test(arguments: ["Quectel", "SIMCOM_SIM7080G", "Nordic Semiconductor ASA", "Revision: BG96MAR02A07M1G"])
    func bareTextIsInformationForIdentityCommands(line: String) {
        #expect(classifier.classify(line, pending: pending("AT+CGMI")) == .information(line))
        #expect(classifier.classify(line, pending: pending("ATI")) == .information(line))
    }

    @Test func bareTextDuringAReadCommandIsNotTakenForTheAnswer() {
        #expect(
            classifier.classify("Boot: Unsigned", pending: pending("AT+CFUN?")) == .unsolicitedText("Boot: Unsigned")
        )
        #expect(classifier.classify("Boot: Unsigned", pending: nil) == .unsolicitedText("Boot: Unsigned"))
    }

    @Test func bareTextForSetCommandsIsInformation() {
        // BC95 AT+NSOCR answers with a bare socket number.
        #expect(classifier.classify("1", pending: pending("AT+NSOCR=\"DGRAM\",17,5683,1")) == .information("1"))
    }

    // MARK: URCs

    @Test func expectedPrefixWinsOverTheURCTable() {
        #expect(classifier.classify("+CPIN: READY", pending: pending("AT+CPIN?")) == .information("+CPIN: READY"))
        #expect(
            classifier.classify("+CPIN: READY", pending: pending("AT+CGMI"))
                == .urc(ATURC(name: "+CPIN", line: "+CPIN: READY"))
        )
    }

    @Test(arguments: ["RDY", "APP RDY", "Neul", "SMS Ready", "REBOOT_CAUSE_SECURITY_RESET_PIN", "^SYSSTART", "RING"])
    func bootAndStatusMarkersAreURCsEvenDuringACommand(line: String) {
        #expect(isURC(classifier.classify(line, pending: pending("AT+CGMI"))))
        #expect(isURC(classifier.classify(line, pending: nil)))
    }

    @Test func trailingSpaceAfterNeulIsIgnored() {
        #expect(classifier.classify("Neul ", pending: nil) == .urc(ATURC(name: "Neul", line: "Neul")))
    }

    @Test func unknownResultCodeNameIsAnUnrecognisedURC() {
        let result = classifier.classify("+APP PDP: 0,ACTIVE", pending: pending("AT+CNACT=0,1"))
        #expect(result == .urc(ATURC(name: "+APP PDP", line: "+APP PDP: 0,ACTIVE", isRecognised: false)))
        if case .urc(let urc) = result {
            #expect(urc.parameters == "0,ACTIVE")
        }
    }

    @Test func namePatternsDoNotMatchLongerNames() {
        // +CMT (SMS) must not swallow +CMTI, nor +CGEV a vendor's +CGEVX.
        #expect(
            classifier.classify("+CMTI: \"SM\",3", pending: nil) == .urc(ATURC(name: "+CMTI", line: "+CMTI: \"SM\",3"))
        )
        #expect(
            classifier.classify("+CGEVX: 1", pending: nil)
                == .urc(ATURC(name: "+CGEVX", line: "+CGEVX: 1", isRecognised: false))
        )
    }

    @Test func dialectPatternsExtendTheBaseline() {
        let nordic = ATLineClassifier(urcTable: .ts27007Baseline.adding([.line("Ready"), .name("%XSIM")]))
        #expect(nordic.classify("Ready", pending: nil) == .urc(ATURC(name: "Ready", line: "Ready")))
        #expect(classifier.classify("Ready", pending: nil) == .unsolicitedText("Ready"))
    }

    // MARK: Prompts

    @Test func promptReceivedAsAWholeLineIsStillThePrompt() {
        let sim7080Write = ATCommandRequest("AT+CFSWFILE=3,\"a.txt\",0,5,10000", payload: [], prompt: .download)
        #expect(classifier.classify("DOWNLOAD", pending: sim7080Write.expectation) == .prompt(.download))
        #expect(
            classifier.classify(">", pending: ATCommandRequest("AT+CMGS=5", payload: []).expectation)
                == .prompt(.greaterThan)
        )
    }

    // MARK: Expectation derivation (3GPP TS 27.007 §4.1 command syntax)

    @Test func derivesPrefixesAndFormsFromTheCommandLine() {
        let read = ATResponseExpectation(command: "AT+CEREG?")
        #expect(read.prefixes == ["+CEREG"])
        #expect(read.readPrefixes == ["+CEREG"])
        #expect(!read.allowsBareText)

        let concatenated = ATResponseExpectation(command: "AT+CIMI;+CGSN=1")
        #expect(concatenated.prefixes == ["+CIMI", "+CGSN"])
        #expect(concatenated.allowsBareText)

        let nordic = ATResponseExpectation(command: "AT%XICCID")
        #expect(nordic.prefixes == ["%XICCID"])

        let basic = ATResponseExpectation(command: "ATE0+CMEE=1")
        #expect(basic.prefixes == ["+CMEE"])

        let quoted = ATResponseExpectation(command: "AT+CGDCONT=1,\"IP\",\"a;b\"")
        #expect(quoted.prefixes == ["+CGDCONT"])

        let test = ATResponseExpectation(command: "at+cops=?")
        #expect(test.prefixes == ["+COPS"])
        #expect(test.testPrefixes == ["+COPS"])
    }
}
