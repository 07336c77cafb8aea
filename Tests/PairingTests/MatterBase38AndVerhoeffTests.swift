import Testing

@testable import Pairing

@Suite("Base38 (Matter Core spec §5.1.3) and Verhoeff (§5.1.4)")
struct MatterBase38AndVerhoeffTests {
    /// connectedhomeip src/setup_payload/tests/TestQRCode.cpp, TestBase38.
    static let base38Vectors: [([UInt8], String)] = [
        ([], ""),
        ([10], "A0"),
        ([10, 10], "OT10"),
        ([10, 10, 10], "-N.B0"),
        ([10, 10, 0], "OT100"),
        ([10, 10, 40], "Y6V91"),
        ([10, 10, 41], "KL0B1"),
        ([10, 10, 255], "Q-M08"),
        ([35], "Z0"),
        ([255, 0], "R600"),
        ([46, 0, 0], "81000"),
        ([255], "R6"),
        ([255, 255], "NE71"),
        ([255, 255, 255], "PLS18"),
        ([0, 1], "S600"),
        ([0, 0, 1], "OE710"),
        (Array("Hello World!".utf8), "KKHF3W2S013OPM3EJX11"),
    ]

    @Test("base38 encodes and decodes connectedhomeip's vectors", arguments: base38Vectors)
    func base38MatchesVectors(_ bytes: [UInt8], _ text: String) throws {
        #expect(Base38.encode(bytes) == text)
        #expect(try Base38.decode(text) == bytes)
    }

    @Test(
        "base38 rejects characters outside the alphabet, with their position",
        arguments: [
            ("[0", 1, "["), ("0[", 2, "["), (" 0", 1, " "), ("!0", 1, "!"), ("*0", 1, "*"), ("%0", 1, "%"),
            ("@0", 1, "@"), (":0", 1, ":"), ("/0", 1, "/"), ("a0", 1, "a"), ("0\u{1}", 2, "\\u{01}"),
            ("\"0", 1, "\\\""), ("00000\u{E9}0", 6, "\\u{00E9}"),
        ] as [(MatterTestInput, Int, String)]
    )
    func base38RejectsForeignCharacters(_ input: MatterTestInput, _ position: Int, _ shown: String) {
        #expect(throws: MatterPayloadError.invalidBase38Character(position: position, character: shown)) {
            try Base38.decode(input.text)
        }
    }

    @Test(
        "base38 rejects chunk values that do not fit their byte count",
        arguments: [
            ("S6", 1, 256, 1), ("OE71", 1, 0x1_0000, 2), ("QLS18", 1, 0x100_0000, 3), ("00000S6", 6, 256, 1),
            ("..", 1, 37 * 38 + 37, 1),
        ]
    )
    func base38RejectsOverflowingChunks(_ text: String, _ position: Int, _ value: Int, _ byteCount: Int) {
        #expect(throws: MatterPayloadError.base38ChunkOverflow(position: position, value: value, byteCount: byteCount))
        {
            try Base38.decode(text)
        }
    }

    @Test("base38 rejects lengths that leave 1 or 3 characters", arguments: ["0", "000", "000000", "00000000"])
    func base38RejectsImpossibleLengths(_ text: String) {
        #expect(throws: MatterPayloadError.invalidBase38Length(characterCount: text.count)) {
            try Base38.decode(text)
        }
    }

    @Test("base38 round-trips every length from 0 to 40 bytes")
    func base38RoundTripsAllLengths() throws {
        var generator = MatterTestRandom(seed: 38)
        for length in 0...40 {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            let text = Base38.encode(bytes)
            #expect(text.count == length / 3 * 5 + [0, 2, 4][length % 3])
            #expect(try Base38.decode(text) == bytes)
        }
    }

    @Test(
        "Verhoeff check digits match the published ones",
        arguments: [
            ("236", "3"),  // Verhoeff's own worked example.
            ("2361087535", "0"),  // TestManualCode.cpp default payload.
            ("3497011233", "2"),  // 34970112332.
            ("52927623630456200032", "2"),
            ("40000100000000100001", "5"),
            ("0000010000", "7"),
            ("0268435458", "4"),
        ]
    )
    func verhoeffComputesCheckDigit(_ digits: String, _ check: Character) {
        #expect(Verhoeff.checkDigit(for: digits) == check)
        #expect(Verhoeff.isValid(digits + String(check)))
    }

    @Test("Verhoeff catches every single-digit error and every adjacent swap of a valid code")
    func verhoeffDetectsSingleErrorsAndSwaps() {
        let code = Array("745492075300001000013")
        for index in code.indices {
            for digit in "0123456789" where digit != code[index] {
                var typo = code
                typo[index] = digit
                #expect(!Verhoeff.isValid(String(typo)), "digit \(index + 1) changed to \(digit)")
            }
            if index + 1 < code.count, code[index] != code[index + 1] {
                var swapped = code
                swapped.swapAt(index, index + 1)
                #expect(!Verhoeff.isValid(String(swapped)), "digits \(index + 1) and \(index + 2) swapped")
            }
        }
    }

    @Test("a computed Verhoeff digit always validates")
    func verhoeffCheckDigitAlwaysValidates() throws {
        var generator = MatterTestRandom(seed: 5)
        for _ in 0..<2000 {
            let length = Int(generator.next() % 25) + 1
            let digits = String((0..<length).map { _ in Character(String(generator.next() % 10)) })
            let check = try #require(Verhoeff.checkDigit(for: digits))
            #expect(Verhoeff.isValid(digits + String(check)), "\(digits)")
        }
    }

    @Test("Verhoeff refuses empty and non-digit input", arguments: ["", "12a", "１２", "1 2", "-1"])
    func verhoeffRefusesNonDigits(_ text: String) {
        #expect(Verhoeff.checkDigit(for: text) == nil)
        #expect(Verhoeff.isValid(text) == false)
    }
}
