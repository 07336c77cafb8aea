/// The IMEI check of 3GPP TS 23.003 §6.2.1: 15 digits whose last is the Luhn check digit.
///
/// A copy of the rule in `DeviceIdentity` (ATKit must not depend on it): the probe uses it to
/// refuse to report a serial number or a corrupted line as an IMEI.
enum IMEIValidation {
    static func isValid(_ text: String) -> Bool {
        let digits = text.utf8.map { Int($0) - 48 }
        guard digits.count == 15, digits.allSatisfy({ (0...9).contains($0) }) else { return false }
        return luhnSum(digits) % 10 == 0
    }

    /// The Luhn sum, doubling every second digit from the right.
    static func luhnSum(_ digits: [Int]) -> Int {
        var sum = 0
        for (offset, digit) in digits.reversed().enumerated() {
            if offset % 2 == 1 {
                let doubled = digit * 2
                sum += doubled > 9 ? doubled - 9 : doubled
            } else {
                sum += digit
            }
        }
        return sum
    }
}
