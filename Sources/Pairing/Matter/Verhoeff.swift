/// The Verhoeff decimal check digit that ends every Matter manual pairing code (Matter Core spec §5.1.4).
///
/// Catches every single-digit error and every swap of adjacent digits, which is why the spec uses it for codes
/// that people type.
public enum Verhoeff {
    /// The check digit to append to `digits`, or nil when `digits` is empty or holds anything but ASCII 0-9.
    public static func checkDigit(for digits: String) -> Character? {
        guard let values = asciiDigits(digits), !values.isEmpty else { return nil }
        var check = 0
        for (index, value) in values.reversed().enumerated() {
            check = multiplication[check][permutation[(index + 1) % 8][value]]
        }
        return Character(String(inverse[check]))
    }

    /// True when the last digit of `digitsWithCheck` is the Verhoeff check digit of the ones before it.
    /// False for fewer than 2 characters or anything but ASCII 0-9.
    public static func isValid(_ digitsWithCheck: String) -> Bool {
        guard let values = asciiDigits(digitsWithCheck), values.count >= 2 else { return false }
        var check = 0
        for (index, value) in values.reversed().enumerated() {
            check = multiplication[check][permutation[index % 8][value]]
        }
        return check == 0
    }

    private static func asciiDigits(_ text: String) -> [Int]? {
        var values: [Int] = []
        values.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            values.append(Int(byte - 0x30))
        }
        return values
    }

    /// Multiplication table of the dihedral group D5.
    private static let multiplication: [[Int]] = [
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
        [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
        [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
        [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
        [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
        [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
        [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
        [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
        [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
        [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
    ]

    /// Position-dependent permutation, row = position modulo 8.
    private static let permutation: [[Int]] = [
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
        [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
        [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
        [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
        [9, 4, 5, 3, 1, 2, 6, 8, 7, 0],
        [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
        [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
        [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
    ]

    /// Inverse of each element of D5.
    private static let inverse: [Int] = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9]
}
