import ATKit
import Testing

/// `+CEREG` / `+CGREG` / `+CREG` shapes (3GPP TS 27.007 §10.1.22, §10.1.20, §7.2) as modules print them.
@Suite struct RegistrationStatusTests {
    @Test func readWithEveryField() throws {
        let status = try RegistrationStatus(
            readParameters: "5,3,\"0A0B\",\"01020304\",9,0,11,\"00100001\",\"00111000\""
        )
        #expect(status.reportingLevel == 5)
        #expect(status.state == .denied)
        #expect(status.causeType == 0 && status.rejectCause == 11)
        #expect(status.activeTimeSeconds == 60 && status.periodicTAUSeconds == 86400)
    }

    @Test func levelFourWithoutTheCausePlaceholders() throws {
        // 27.007 writes ",," for the absent cause pair; some firmware leaves it out.
        let status = try RegistrationStatus(readParameters: "4,1,\"0A0B\",\"01020304\",7,\"00000011\",\"10000001\"")
        #expect(status.causeType == nil)
        #expect(status.activeTimeSeconds == 6)
        #expect(status.periodicTAUSeconds == 30)
    }

    @Test func spacesAroundFieldsAndUnquotedHex() throws {
        // ModemManager's test corpus: "+CEREG: 2,1, 1F00, 79D903 ,7".
        let status = try RegistrationStatus(readParameters: "2,1, 1F00, 79D903 ,7")
        #expect(status.areaCode == "1F00" && status.cellID == "79D903" && status.accessTechnology == 7)
    }

    @Test func unknownLocationIsNil() throws {
        let status = try RegistrationStatus(urcParameters: "2,\"FFFE\",\"FFFFFFFF\",9")
        #expect(status.areaCode == nil && status.cellID == nil)
        #expect(status.state == .searching)
    }

    @Test func deactivatedTimerIsNil() throws {
        let status = try RegistrationStatus(urcParameters: "1,\"0A0B\",\"01020304\",9,,,\"11100000\",\"11100000\"")
        #expect(status.activeTime == "11100000")
        #expect(status.activeTimeSeconds == nil && status.periodicTAUSeconds == nil)
    }

    @Test func twoDigitStatAndNordicSIMFailure() throws {
        #expect(try RegistrationStatus(urcParameters: "90").state == .simFailure)
        let odd = try RegistrationStatus(readParameters: "2,11")
        #expect(odd.stat == 11 && odd.state == nil && !odd.isRegistered)
    }

    @Test func creg() throws {
        let status = try RegistrationStatus(readParameters: "2,5,\"1A2B\",\"01A2D101\",7", domain: .circuitSwitched)
        #expect(status.isRegistered && status.domain == .circuitSwitched && status.activeTime == nil)
    }

    @Test(arguments: ["", "x", "1,", "a,1"])
    func malformedReadIsRejected(_ text: String) {
        #expect(throws: RegistrationStatus.ParseFailure.self) { try RegistrationStatus(readParameters: text) }
    }

    @Test func parseErrorNamesCommandAndLines() {
        let response = ATResponse(command: "AT+CEREG?", lines: ["+CEREG: x"], final: .ok)
        #expect(throws: ATResponseParseError.self) { try CEREG.Read().parse(response) }
        do {
            _ = try CEREG.Read().parse(response)
        } catch {
            #expect(error.command == "AT+CEREG?")
            #expect(error.lines == ["+CEREG: x"])
            #expect(error.description.contains("AT+CEREG?"))
        }
    }
}
