import Crypto
import Foundation

/// Random tokens for sessions and forms: 32 bytes from the system CSPRNG, base64url without
/// padding (43 characters, cookie-safe).
enum ConsoleSecret {
    static func token() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// SHA-256 of `token`, hex: what the session table is keyed by, so a session's key is never
    /// compared byte by byte with what a client sends (a dictionary lookup of a digest leaks nothing).
    static func digest(_ token: String) -> String {
        SHA256.hash(data: Array(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// Constant-time equality of two strings' bytes.
    static func equal(_ a: String, _ b: String) -> Bool {
        ConsolePasswordHasher.constantTimeEqual(Array(a.utf8), Array(b.utf8))
    }
}
