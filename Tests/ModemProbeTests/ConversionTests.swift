import ATKit
import Testing

/// PSM timers, eDRX and signal conversions, both ways.
@Suite struct ConversionTests {
    // MARK: PSM timers (3GPP TS 24.008 §10.5.7.4a, §10.5.7.3)

    @Test(arguments: [
        ("00111000", 86400), ("00000001", 600), ("00100001", 3600), ("01000001", 36000), ("01100101", 10),
        ("10000010", 60), ("10100011", 180), ("11000001", 1_152_000), ("01100000", 0),
    ])
    func periodicTAUDecodes(_ bits: String, _ seconds: Int) {
        #expect(PSMTimer.periodicTAU.seconds(fromBits: bits) == seconds)
    }

    @Test(arguments: [("00100001", 60), ("00000011", 6), ("01000010", 720), ("00000000", 0), ("01111111", 1860)])
    func activeTimeDecodes(_ bits: String, _ seconds: Int) {
        #expect(PSMTimer.activeTime.seconds(fromBits: bits) == seconds)
    }

    @Test func deactivatedAndMalformedDecodeToNil() {
        #expect(PSMTimer.periodicTAU.seconds(fromBits: "11100000") == nil)
        #expect(PSMTimer.activeTime.seconds(fromBits: "11111111") == nil)
        #expect(PSMTimer.activeTime.seconds(fromBits: "0010000") == nil)
        #expect(PSMTimer.activeTime.seconds(fromBits: "0010000x") == nil)
    }

    @Test func reservedActiveTimeUnitsReadAsMinutes() {
        #expect(PSMTimer.activeTime.seconds(fromBits: "01100010") == 120)
    }

    @Test(arguments: [86400, 3600, 60, 10, 30, 600, 36000, 1_152_000, 0, 62])
    func periodicTAUEncodesExactlyWhenPossible(_ seconds: Int) {
        let encoded = PSMTimer.periodicTAU.bits(forSeconds: seconds)
        #expect(encoded.seconds == seconds)
        #expect(PSMTimer.periodicTAU.seconds(fromBits: encoded.bits) == seconds)
    }

    @Test func encodingPrefersTheSmallestExactUnit() {
        #expect(PSMTimer.periodicTAU.bits(forSeconds: 86400).bits == "00111000")
        #expect(PSMTimer.activeTime.bits(forSeconds: 60).bits == "00011110")
        #expect(PSMTimer.activeTime.bits(forSeconds: 6).bits == "00000011")
    }

    @Test func encodingRoundsUpWhenNotRepresentable() {
        // 61 s: 2 s steps stop at 62 s, which is the next value up.
        #expect(PSMTimer.activeTime.bits(forSeconds: 61) == ("00011111", 62))
        // 100 min: 6-minute steps → 102 min.
        let hundredMinutes = PSMTimer.activeTime.bits(forSeconds: 6000)
        #expect(hundredMinutes.seconds == 6120)
        #expect(PSMTimer.activeTime.seconds(fromBits: hundredMinutes.bits) == 6120)
        // Beyond 31 × 6 min the largest value is used.
        #expect(PSMTimer.activeTime.bits(forSeconds: 100_000).seconds == 31 * 360)
    }

    @Test func nilEncodesDeactivated() {
        #expect(PSMTimer.activeTime.bits(forSeconds: nil).bits == "11100000")
        #expect(PSMTimer.periodicTAU.bits(forSeconds: nil).seconds == nil)
    }

    @Test func everyEncodingRoundTrips() {
        for timer in PSMTimer.allCases {
            for seconds in stride(from: 0, through: 200_000, by: 97) {
                let encoded = timer.bits(forSeconds: seconds)
                let decoded = timer.seconds(fromBits: encoded.bits)
                #expect(decoded == encoded.seconds)
                if let decoded, seconds <= 31 * 360 || timer == .periodicTAU {
                    #expect(decoded >= seconds, "\(timer) \(seconds) → \(encoded.bits) = \(decoded)")
                }
            }
        }
    }

    @Test func cpsmsWritesSecondsAsBitStrings() throws {
        let command = try CPSMS.Set(periodicTAU: 86400, activeTime: 60)
        #expect(command.command == "AT+CPSMS=1,,,\"00111000\",\"00011110\"")
        #expect(CPSMS.Set.disable.command == "AT+CPSMS=0")
        #expect(throws: ATCommandArgumentError.self) { try CPSMS.Set(periodicTAU: 60, activeTime: 60) }
    }

    // MARK: eDRX (3GPP TS 24.008 Table 10.5.5.32)

    @Test func edrxCycles() {
        #expect(EDRXCycle.seconds(fromBits: "0101", technology: .lteM) == 81.92)
        #expect(EDRXCycle.seconds(fromBits: "0010", technology: .lteM) == 20.48)
        #expect(EDRXCycle.seconds(fromBits: "0000", technology: .lteM) == 5.12)
        #expect(EDRXCycle.seconds(fromBits: "1101", technology: .nbIoT) == 2621.44)
        // NB-S1 reads undefined codes as 0010.
        #expect(EDRXCycle.seconds(fromBits: "0000", technology: .nbIoT) == 20.48)
        #expect(EDRXCycle.pagingWindowSeconds(fromBits: "1011", technology: .lteM) == 15.36)
        #expect(EDRXCycle.pagingWindowSeconds(fromBits: "0111", technology: .nbIoT) == 20.48)
    }

    @Test func edrxEncodesTheShortestCycleAtLeastAsLong() {
        #expect(EDRXCycle.bits(forSeconds: 81.92, technology: .lteM) == ("0101", 81.92))
        #expect(EDRXCycle.bits(forSeconds: 60, technology: .lteM) == ("0100", 61.44))
        #expect(EDRXCycle.bits(forSeconds: 30, technology: .nbIoT) == ("0011", 40.96))
        #expect(EDRXCycle.bits(forSeconds: 1_000_000, technology: .nbIoT).bits == "1111")
        #expect(EDRXCycle.pagingWindowBits(forSeconds: 15.36, technology: .lteM) == ("1011", 15.36))
        #expect(CEDRXS.Set(technology: .nbIoT, cycleSeconds: 2621.44).command == "AT+CEDRXS=2,5,\"1101\"")
        #expect(CEDRXS.Set(technology: .lteM, cycleSeconds: nil).command == "AT+CEDRXS=3,4")
    }

    @Test func edrxRoundTrips() {
        for technology in [EDRXCycle.AccessTechnology.lteM, .nbIoT] {
            for code in 0..<16 {
                let bits = String(repeating: "0", count: 4 - String(code, radix: 2).count) + String(code, radix: 2)
                let seconds = EDRXCycle.seconds(fromBits: bits, technology: technology)!
                let encoded = EDRXCycle.bits(forSeconds: seconds, technology: technology)
                #expect(EDRXCycle.seconds(fromBits: encoded.bits, technology: technology) == seconds)
            }
        }
    }

    // MARK: Signal (27.007 §8.5, §8.69)

    @Test(arguments: [(0, -113), (1, -111), (18, -77), (31, -51)])
    func csqToDBm(_ rssi: Int, _ dBm: Int) {
        #expect(SignalQuality(rssi: rssi, ber: 99).rssiDBm == dBm)
        #expect(SignalQuality.rssi(dBm: dBm) == rssi)
    }

    @Test func csqUnknown() {
        #expect(SignalQuality(rssi: 99, ber: 99).rssiDBm == nil)
        #expect(SignalQuality.dBm(rssi: 32) == nil)
    }

    @Test(arguments: [(0, -141), (47, -94), (97, -44)])
    func rsrp(_ index: Int, _ dBm: Int) {
        #expect(ExtendedSignalQuality.rsrpDBm(index: index) == dBm)
        #expect(ExtendedSignalQuality.rsrpIndex(dBm: dBm) == index)
    }

    @Test(arguments: [(0, -20.0), (13, -13.5), (34, -3.0)])
    func rsrq(_ index: Int, _ dB: Double) {
        #expect(ExtendedSignalQuality.rsrqDB(index: index) == dB)
        #expect(ExtendedSignalQuality.rsrqIndex(dB: dB) == index)
    }

    @Test func cesqUnknownFields() {
        let quality = ExtendedSignalQuality(rxlev: 99, ber: 99, rscp: 255, ecno: 255, rsrq: 255, rsrp: 255)
        #expect(quality.rsrpDBm == nil && quality.rsrqDB == nil)
    }
}
