/// The outbox's idempotency keys: the one generator, for single changes, group commits, CSV
/// batches and registrations alike.
public enum IdempotencyKey {
    /// `nbgw-` and 26 characters of lower-case Crockford base32 (no i, l, o, u): 130 bits from the
    /// system CSPRNG.
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return make(using: &generator)
    }

    /// ``make()`` from the given generator (tests pass a seeded one).
    public static func make<Generator: RandomNumberGenerator>(using generator: inout Generator) -> String {
        "nbgw-" + randomText(count: 26, using: &generator)
    }

    /// `count` characters of lower-case Crockford base32 from the system CSPRNG (5 bits each):
    /// keys and module secrets.
    static func randomText(count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return randomText(count: count, using: &generator)
    }

    /// Why 64-bit draws split into 5-bit characters instead of one draw per character: each draw
    /// of the system generator is a `getrandom` call, and a CSV batch for a syncing cloud makes one
    /// key per bound row (12 characters per draw: 3 calls a key instead of 26).
    static func randomText<Generator: RandomNumberGenerator>(count: Int, using generator: inout Generator) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(count)
        var bits: UInt64 = 0
        var available = 0
        for _ in 0..<count {
            if available < 5 {
                bits = generator.next()
                available = 64
            }
            text.append(alphabet[Int(bits & 31)])
            bits >>= 5
            available -= 5
        }
        return String(decoding: text, as: UTF8.self)
    }

    static let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz".utf8)
}
