/// The Luhn (mod 10) check used by IMEIs (3GPP TS 23.003 §6.2.1, Annex B) and ICCIDs (ITU-T E.118).
public enum Luhn {
    /// True when the last digit of `digits` is the Luhn check digit of the ones before it.
    /// Returns false for empty strings or any non-digit character.
    public static func isValid(_ digits: String) -> Bool {
        var sum = 0
        var double = false
        for byte in digits.utf8.reversed() {
            guard byte >= 0x30 && byte <= 0x39 else { return false }
            var value = Int(byte - 0x30)
            if double {
                value *= 2
                if value > 9 { value -= 9 }
            }
            sum += value
            double.toggle()
        }
        return !digits.isEmpty && sum % 10 == 0
    }

    /// The check digit to append to `payload` (digits only) so that the result passes ``isValid(_:)``.
    public static func checkDigit(for payload: String) -> Int {
        var sum = 0
        var double = true
        for byte in payload.utf8.reversed() {
            var value = Int(byte &- 0x30)
            if double {
                value *= 2
                if value > 9 { value -= 9 }
            }
            sum += value
            double.toggle()
        }
        return (10 - sum % 10) % 10
    }
}
