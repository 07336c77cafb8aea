import ATKit
import Testing

@Suite struct ATFinalResultTests {
    @Test(arguments: [
        ("OK", ATFinalResult.ok),
        ("ERROR", .error),
        ("+CME ERROR: 10", .cmeError(code: 10, text: nil)),
        ("+CME ERROR:50", .cmeError(code: 50, text: nil)),  // Hi2115: no space
        ("+CME ERROR: SIM not inserted", .cmeError(code: 10, text: "SIM not inserted")),
        ("+CME ERROR: Operation not allowed", .cmeError(code: 3, text: "Operation not allowed")),  // u-blox case
        ("+CME ERROR: operation not allowed", .cmeError(code: 3, text: "operation not allowed")),  // SIMCom case
        ("+CME ERROR: 797", .cmeError(code: 797, text: nil)),  // SIMCom vendor range
        ("+CME ERROR: some vendor text", .cmeError(code: nil, text: "some vendor text")),
        ("+CMS ERROR: 500", .cmsError(code: 500, text: nil)),
        ("+CIS ERROR: 601", .cisError(code: 601, text: nil)),
        ("NO CARRIER", .noCarrier),
        ("BUSY", .busy),
        ("NO ANSWER", .noAnswer),
        ("NO DIALTONE", .noDialtone),
        ("CONNECT", .connect(nil)),
        ("CONNECT 150000000", .connect("150000000")),
        ("SEND OK", .sendOK),
        ("SEND FAIL", .sendFail),
    ])
    func parsesFinalResultCodes(line: String, expected: ATFinalResult) {
        #expect(ATFinalResult(line: line) == expected)
    }

    @Test(arguments: ["OKAY", "Quectel", "+CEREG: 1", "CONNECTED", "RING", "+CME ERRORS: 1", "ok"])
    func rejectsLinesThatAreNotFinalResults(line: String) {
        #expect(ATFinalResult(line: line) == nil)
    }

    @Test func successCodesAreOKConnectAndSendOK() {
        #expect(ATFinalResult.ok.isSuccess)
        #expect(ATFinalResult.connect(nil).isSuccess)
        #expect(ATFinalResult.sendOK.isSuccess)
        #expect(!ATFinalResult.error.isSuccess)
        #expect(!ATFinalResult.cmeError(code: 10, text: nil).isSuccess)
        #expect(!ATFinalResult.noCarrier.isSuccess)
        #expect(!ATFinalResult.sendFail.isSuccess)
    }

    @Test func descriptionNamesTheCMEErrorMeaning() {
        #expect(ATFinalResult.cmeError(code: 10, text: nil).description == "+CME ERROR: 10 (SIM not inserted)")
        #expect(ATCMEErrorCatalogue.text(for: 13) == "SIM failure")
        #expect(ATCMEErrorCatalogue.code(forText: "SIM PIN Required") == 11)
    }
}
