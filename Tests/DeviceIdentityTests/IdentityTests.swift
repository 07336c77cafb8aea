import DeviceIdentity
import Testing

@Suite("Module identities")
struct IdentityTests {
    @Test(
        "IMEIs with a correct Luhn digit are accepted",
        arguments: ["490154203237518", "356938035643809", "866425031234562", " 352656100123457\r\n"]
    )
    func validIMEI(_ text: String) throws {
        let imei = try IMEI(text)
        #expect(imei.digits.count == 15)
        #expect(imei.typeAllocationCode == String(imei.digits.prefix(8)))
    }

    @Test(
        "IMEIs with a wrong check digit, wrong length or non-digits are rejected",
        arguments: [
            "490154203237519", "49015420323751", "4901542032375180", "49015420323751A", "", "+CGSN: 490154203237518",
        ]
    )
    func invalidIMEI(_ text: String) {
        #expect(throws: IdentityError.self) { try IMEI(text) }
    }

    @Test("The Luhn check digit is computed for any payload")
    func luhnCheckDigit() {
        #expect(Luhn.checkDigit(for: "49015420323751") == 8)
        #expect(Luhn.checkDigit(for: "35693803564380") == 9)
        for payload in ["1", "12345678901234", "00000000000000", "99999999999999"] {
            #expect(Luhn.isValid(payload + String(Luhn.checkDigit(for: payload))))
        }
        #expect(!Luhn.isValid(""))
    }

    @Test(
        "IMSI accepts 6 to 15 digits only",
        arguments: [("460001357924680", true), ("12345", false), ("4600013579246801", false), ("46000a", false)]
    )
    func imsi(_ text: String, _ valid: Bool) {
        #expect(((try? IMSI(text)) != nil) == valid)
    }

    @Test(
        "ICCID accepts 18 to 22 digits with an optional F pad",
        arguments: [
            ("89860012345678901234", true), ("8986001234567890123F", true), ("898600123456789", false),
            ("8986001234567890123X", false), ("FFFFFFFFFFFFFFFFFFFF", false),
        ]
    )
    func iccid(_ text: String, _ valid: Bool) {
        #expect(((try? ICCID(text)) != nil) == valid)
    }

    @Test(
        "Device ids are 1 to 64 URL-safe characters",
        arguments: [
            ("nbowpzs009e7f974a5rk", true), ("6c8f3a2b-1d0e_4f.5a", true), ("", false), ("a b", false),
            ("a/b", false), (String(repeating: "x", count: 65), false), ("dev\u{0}", false),
        ]
    )
    func deviceID(_ text: String, _ valid: Bool) {
        #expect(((try? DeviceID(text)) != nil) == valid)
    }
}
