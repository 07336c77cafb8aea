import Crypto
import Foundation
import _CryptoExtras

/// Console passwords, stored as PHC strings of scrypt (RFC 7914) through swift-crypto's
/// `KDF.Scrypt` (BoringSSL's `EVP_PBE_scrypt`).
///
/// Cost (docs/console.md, "Security"): N = 2^15, r = 8, p = 3, one of OWASP's equivalent scrypt
/// settings: 32 MiB of memory per derivation (128 · r · N bytes). `tools/bench-kdf.sh` measures
/// it against OpenSSL's scrypt with the same parameters: on the shared 2-core build host at load
/// 14-17, OpenSSL took 0.6-2.1 s and a debug build 4.8-5.9 s (BoringSSL unoptimised). Why not
/// 2^17 (OWASP's first row, 128 MiB): a gateway may have 256 MiB in all, and five sign-ins at once
/// would take half of it; p = 3 buys about the same work in a quarter of the memory. The parameters travel in the
/// hash, so a later, higher cost verifies old hashes and `nbgw operators add --replace` upgrades.
public struct ConsolePasswordHasher: Sendable, Equatable {
    /// log2(N).
    public var logN: Int
    public var blockSize: Int
    public var parallelism: Int
    public var saltBytes: Int
    public var keyBytes: Int

    public init(logN: Int = 15, blockSize: Int = 8, parallelism: Int = 3, saltBytes: Int = 16, keyBytes: Int = 32) {
        self.logN = logN
        self.blockSize = blockSize
        self.parallelism = parallelism
        self.saltBytes = saltBytes
        self.keyBytes = keyBytes
    }

    /// The cost every new password gets.
    public static let standard = ConsolePasswordHasher()

    /// Passwords shorter than this are refused (NIST SP 800-63B's minimum for a chosen secret).
    public static let minimumLength = 8
    /// And longer than this: a bound on the work a sign-in request can ask for.
    public static let maximumLength = 1024

    /// Bytes of memory one derivation needs (128 · r · N).
    public var memoryBytes: Int { 128 * blockSize * (1 << logN) }

    /// A new PHC string for `password`: `$scrypt$ln=15,r=8,p=3$<salt>$<key>` (base64, no padding).
    public func hash(_ password: String) throws -> String {
        var salt = [UInt8](repeating: 0, count: saltBytes)
        var generator = SystemRandomNumberGenerator()
        for index in salt.indices { salt[index] = UInt8.random(in: .min ... .max, using: &generator) }
        let key = try derive(password, salt: salt, logN: logN, r: blockSize, p: parallelism, length: keyBytes)
        return "$scrypt$ln=\(logN),r=\(blockSize),p=\(parallelism)$\(Self.base64(salt))$\(Self.base64(key))"
    }

    /// Whether `password` matches `phc` (constant-time comparison of the derived keys). A string
    /// that is not one of ours, or asks for more than 2^20 · 8 (1 GiB), never matches.
    public func verify(_ password: String, against phc: String) -> Bool {
        guard let parsed = Self.parse(phc), parsed.logN <= 20, parsed.r <= 16, parsed.p <= 16,
            let key = try? derive(
                password,
                salt: parsed.salt,
                logN: parsed.logN,
                r: parsed.r,
                p: parsed.p,
                length: parsed.key.count
            )
        else { return false }
        return Self.constantTimeEqual(key, parsed.key)
    }

    /// The parameters and bytes of a PHC string, or nil.
    static func parse(_ phc: String) -> (logN: Int, r: Int, p: Int, salt: [UInt8], key: [UInt8])? {
        let parts = phc.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "scrypt" else { return nil }
        var values: [String: Int] = [:]
        for pair in parts[2].split(separator: ",") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            guard kv.count == 2, let value = Int(kv[1]), value > 0 else { return nil }
            values[String(kv[0])] = value
        }
        guard let logN = values["ln"], let r = values["r"], let p = values["p"], let salt = unbase64(parts[3]),
            let key = unbase64(parts[4]), !salt.isEmpty, key.count >= 16
        else { return nil }
        return (logN, r, p, salt, key)
    }

    private func derive(_ password: String, salt: [UInt8], logN: Int, r: Int, p: Int, length: Int) throws -> [UInt8] {
        let key = try KDF.Scrypt.deriveKey(
            from: Array(password.utf8),
            salt: salt,
            outputByteCount: length,
            rounds: 1 << logN,
            blockSize: r,
            parallelism: p
        )
        return key.withUnsafeBytes { Array($0) }
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    static func base64(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    static func unbase64(_ text: Substring) -> [UInt8]? {
        var padded = String(text)
        while padded.count % 4 != 0 { padded.append("=") }
        return Data(base64Encoded: padded).map(Array.init)
    }
}
