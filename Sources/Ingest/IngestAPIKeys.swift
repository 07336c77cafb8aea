import Crypto
import Foundation
import NBGWCore
import Registry

/// Operator API keys: generation, hashing and verification. The plaintext key exists only in the
/// value ``create(name:registry:)`` returns; the store keeps its SHA-256 digest.
///
/// A key reads `nbgw_XXXXXXXX_YYYY…`: `nbgw_XXXXXXXX` is the public lookup prefix (8 random
/// base62 characters), the 43 `Y` characters are the secret (~256 bits from the system CSPRNG).
public enum IngestAPIKeys {
    /// A freshly created key: `plaintext` is shown once and never stored.
    public struct Created: Sendable, Equatable, Encodable {
        public var name: String
        public var prefix: String
        public var key: String
        public var createdAt: Date
        public var scope: Registry.APIKey.Scope
    }

    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
    static let prefixLength = 13  // "nbgw_" + 8
    static let keyLength = 13 + 1 + 43

    /// Creates and stores a key named `name`; returns the plaintext (once).
    public static func create(
        name: String,
        scope: Registry.APIKey.Scope = .full,
        registry: Registry
    ) throws(NBGWError) -> Created {
        var generator = SystemRandomNumberGenerator()
        func random(_ count: Int) -> String {
            String(decoding: (0..<count).map { _ in alphabet.randomElement(using: &generator)! }, as: UTF8.self)
        }
        let prefix = "nbgw_" + random(8)
        let key = prefix + "_" + random(43)
        let record = try registry.apiKeys.create(name: name, prefix: prefix, keyHash: digest(key), scope: scope)
        return Created(name: record.name, prefix: prefix, key: key, createdAt: record.createdAt, scope: record.scope)
    }

    /// The live key `presented` is, or nil (malformed, unknown, wrong secret, revoked).
    public static func verify(_ presented: String, registry: Registry) throws(NBGWError) -> Registry.APIKey? {
        guard presented.utf8.count == keyLength, presented.hasPrefix("nbgw_"),
            presented.utf8.allSatisfy({ $0 == UInt8(ascii: "_") || alphabet.contains($0) })
        else { return nil }
        let prefix = String(presented.prefix(prefixLength))
        return try registry.apiKeys.verify(prefix: prefix, keyHash: digest(presented))
    }

    /// SHA-256 of the key's UTF-8 bytes.
    public static func digest(_ key: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(key.utf8)))
    }
}
