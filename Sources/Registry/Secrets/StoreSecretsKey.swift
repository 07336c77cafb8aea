import Crypto
import Foundation
import NBGWCore

#if canImport(Glibc)
import Glibc
#endif

/// The key the store's module credentials are sealed under (``CredentialSeal``): 256 random bits,
/// kept outside the store in a file only the daemon can read (docs/operations.md, "Module
/// credentials"). The packaged gateway makes it once (`/etc/nbgw/credentials/secrets.key`,
/// root-only) and systemd hands it to nbgwd (`LoadCredential=`).
///
/// The key material never leaves the value: `description` and the mirror show ``id`` only.
public struct StoreSecretsKey: Sendable, CustomStringConvertible, CustomReflectable {
    /// The key's bytes. Why not a `SymmetricKey`: it is not `Sendable` in swift-crypto 3, and the
    /// key crosses tasks with the registry; one is made per seal or open (``key``).
    let bytes: [UInt8]
    var key: SymmetricKey { SymmetricKey(data: bytes) }
    /// Eight hex digits that name the key without revealing it (the first four bytes of
    /// HMAC-SHA256(key, "nbgw secrets key id")); written in every sealed credential, so a credential
    /// sealed under another key is named as such.
    public let id: String

    /// The key of 32 bytes (256 bits).
    public init(bytes: [UInt8]) throws(NBGWError) {
        guard bytes.count == 32 else {
            throw NBGWError(.invalidArgument, "a secrets key is 32 bytes, not \(bytes.count)")
        }
        self.bytes = bytes
        let code = HMAC<SHA256>.authenticationCode(
            for: Array("nbgw secrets key id".utf8),
            using: SymmetricKey(data: bytes)
        )
        self.id = code.prefix(4).map { String(format: "%02x", $0) }.joined()
    }

    /// A new random key (the system CSPRNG).
    public static func generate() -> StoreSecretsKey {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        // Why `try!`: 32 bytes is the one length init accepts.
        return try! StoreSecretsKey(bytes: bytes)
    }

    /// The largest key file read: a key is 32 bytes, or 44 characters of base64 and a newline.
    static let maximumFileBytes = 128

    /// Reads the key file at `path`: 32 raw bytes (`head -c 32 /dev/urandom`), or their base64 with
    /// an optional newline (`openssl rand -base64 32`). Refuses a file that is not regular, that
    /// another user owns, or that anyone but root, this process's user and its own primary group
    /// can read (``NBGWCore/SecretFileAccess``).
    ///
    /// - Throws: `SECRETS_KEY_MISSING` when the file does not exist or this user may not read it;
    ///   `INVALID_ARGUMENT` for a wrong file, owner, mode or content. Each message names the file and
    ///   what to do, never the key.
    public static func load(path: String) throws(NBGWError) -> StoreSecretsKey {
        func failure(_ code: ErrorCode, _ message: String) -> NBGWError {
            NBGWError(code, "the secrets key \(path) \(message)")
        }
        // O_NONBLOCK: a FIFO configured by mistake must not hang the start; regular files ignore it.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else {
            let code = errno
            switch code {
            case ENOENT, ENOTDIR:
                throw failure(
                    .secretsKeyMissing,
                    "does not exist: check the path, or make a key (`head -c 32 /dev/urandom > \(path)`, mode 0600; "
                        + "docs/operations.md, \"Module credentials\")"
                )
            case EACCES:
                throw failure(
                    .secretsKeyMissing,
                    "cannot be read by user \(SecretFileAccess.userName(geteuid())) (permission denied): only the "
                        + "daemon (through systemd's LoadCredential=) and root may read it"
                )
            default:
                throw failure(.secretsKeyMissing, "cannot be opened: \(String(cString: strerror(code)))")
            }
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw failure(.secretsKeyMissing, "cannot be read: \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw failure(.invalidArgument, "is not a regular file: give the path of the key file")
        }
        if let problem = SecretFileAccess.problem(descriptor: descriptor, info: info) {
            throw failure(
                .invalidArgument,
                "\(problem): only the daemon may read it (`chown root:root \(path)` and `chmod 600 \(path)`, handed "
                    + "to nbgwd by LoadCredential=; or owned by the daemon's user with mode 0400)"
            )
        }
        var bytes = [UInt8](repeating: 0, count: maximumFileBytes + 1)
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer in
                read(descriptor, buffer.baseAddress! + filled, buffer.count - filled)
            }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else {
                throw failure(.secretsKeyMissing, "cannot be read: \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            filled += count
        }
        defer { bytes.withUnsafeMutableBytes { _ = memset($0.baseAddress!, 0, $0.count) } }
        if let key = try? parse(Array(bytes[..<filled])) { return key }
        throw failure(
            .invalidArgument,
            "is not a secrets key (\(filled > maximumFileBytes ? "over \(maximumFileBytes)" : "\(filled)") bytes): a "
                + "key is 32 random bytes, or their base64 on one line; make one with `head -c 32 /dev/urandom`"
        )
    }

    /// 32 raw bytes, or 44 characters of base64 (padded) with an optional trailing newline.
    static func parse(_ bytes: [UInt8]) throws(NBGWError) -> StoreSecretsKey {
        if bytes.count == 32 { return try StoreSecretsKey(bytes: bytes) }
        var text = bytes
        if text.last == UInt8(ascii: "\n") { text.removeLast() }
        if text.last == UInt8(ascii: "\r") { text.removeLast() }
        guard text.count == 44, let decoded = Data(base64Encoded: Data(text)), decoded.count == 32 else {
            throw NBGWError(.invalidArgument, "not a secrets key")
        }
        return try StoreSecretsKey(bytes: Array(decoded))
    }

    /// The key's id, never its bytes.
    public var description: String { "StoreSecretsKey(id: \(id))" }

    /// The key's id only, so `dump` and debug output never show the key.
    public var customMirror: Mirror { Mirror(self, children: ["id": id]) }
}
