@preconcurrency import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Seals the gateways' secrets for the database under a 256-bit key kept in a file beside the
/// nodes (mode 0600, never in the database): HMAC-SHA256 signing needs each secret itself, so they
/// cannot be stored as hashes, and a dump or a replica alone must not give them away.
public struct FleetSecrets: Sendable {
    let key: SymmetricKey

    /// Reads the key file, refusing one that others than its owner may read.
    public init(keyFile path: String) throws {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw FleetError(
                "cannot read the key file \(path): it does not exist; create it with `nbgw-cloud key create --key-file \(path)`"
            )
        }
        guard status.st_mode & 0o077 == 0 else {
            throw FleetError(
                "the key file \(path) can be read by others (mode \(String(status.st_mode & 0o777, radix: 8))); "
                    + "run `chmod 600 \(path)`"
            )
        }
        guard let data = FileManager.default.contents(atPath: path), data.count == 32 else {
            throw FleetError("the key file \(path) is not 32 bytes; it is not a key nbgw-cloud made")
        }
        key = SymmetricKey(data: data)
    }

    init(key: SymmetricKey) { self.key = key }

    /// Creates a key file with a fresh random key, mode 0600; refuses to overwrite one.
    public static func create(keyFile path: String) throws {
        let key = SymmetricKey(size: .bits256)
        let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            throw FleetError("cannot create the key file \(path): \(reason) (an existing key is never overwritten)")
        }
        defer { Glibc.close(descriptor) }
        let written = key.withUnsafeBytes { bytes in Glibc.write(descriptor, bytes.baseAddress, bytes.count) }
        guard written == 32, fsync(descriptor) == 0 else {
            throw FleetError("cannot write the key file \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// `secret` sealed with AES-256-GCM; the client id is authenticated with it, so a sealed
    /// secret copied to another gateway's row does not open.
    func seal(_ secret: String, clientID: String) throws -> [UInt8] {
        let box = try AES.GCM.seal(Data(secret.utf8), using: key, authenticating: Data(clientID.utf8))
        guard let combined = box.combined else { throw FleetError("AES-GCM gave no combined form") }
        return Array(combined)
    }

    func unseal(_ sealed: [UInt8], clientID: String) throws -> String {
        let box = try AES.GCM.SealedBox(combined: Data(sealed))
        let plain = try AES.GCM.open(box, using: key, authenticating: Data(clientID.utf8))
        return String(decoding: plain, as: UTF8.self)
    }
}

extension FleetSecrets {
    /// For commands that never seal or open a secret (migrate, tenants add, retire): a throwaway
    /// key, so that they run where the key file is not.
    public static var unusable: FleetSecrets { FleetSecrets(key: SymmetricKey(size: .bits256)) }
}
