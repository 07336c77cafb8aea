import Crypto
import Foundation
import NBGWCore

/// A module credential as the store keeps it (`module_credential.secret` and `.cloud_credential`):
/// `sealed v1 KEYID BASE64`, where BASE64 is AES-256-GCM's nonce (12 bytes), ciphertext and tag
/// (16 bytes) under the secrets key ``StoreSecretsKey/id`` names.
///
/// - The associated data is the column and the row's IMEI (the table's key: the secret exists
///   before the cloud names the device, so the IMEI, not the device id, is what the row is), so a
///   sealed value copied to another row, or from one column to the other, does not open.
/// - Why a space in the prefix: nothing nbgw stored in clear before sealing can start with it (a
///   secret is Crockford base32, a Kii token has no space, a Kii credential with a thing id starts
///   `kii-thing=`), so a value is sealed exactly when it starts with `sealed `, and a row written in
///   clear by an older nbgw is told apart without a schema change.
/// - Size: a 32-character secret seals to 99 characters (the column allows 128); a cloud
///   credential up to ``maximumCredentialBytes`` fits the column's 4096.
enum CredentialSeal {
    static let prefix = "sealed "
    static let version = "v1"

    /// The two columns; part of the associated data.
    enum Column: String {
        case secret
        case cloudCredential = "cloud_credential"

        /// For messages.
        var noun: String { self == .secret ? "secret" : "cloud credential" }
    }

    /// The longest cloud credential that fits the column sealed:
    /// `sealed v1 ` (10) + id (8) + space (1) + base64 of (12 + n + 16), 4 × ⌈(28 + n) / 3⌉, ≤ 4096.
    static let maximumCredentialBytes = 3029

    /// True when `stored` is sealed (of any version); false for a value written in clear by an
    /// nbgw older than sealing.
    static func isSealed(_ stored: String) -> Bool { stored.hasPrefix(prefix) }

    /// The key id a sealed value names, nil for a value in clear or a malformed one.
    static func keyID(_ stored: String) -> String? {
        let fields = stored.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 4, fields[0] == "sealed" else { return nil }
        return String(fields[2])
    }

    static func associatedData(imei: String, column: Column) -> [UInt8] {
        Array("nbgw module_credential.\(column.rawValue) imei=\(imei)".utf8)
    }

    /// Seals `plaintext` for `column` of the row `imei`, under a fresh random nonce.
    static func seal(
        _ plaintext: String,
        imei: String,
        column: Column,
        key: StoreSecretsKey
    ) throws(NBGWError) -> String {
        let box: AES.GCM.SealedBox
        do {
            box = try AES.GCM.seal(
                Array(plaintext.utf8),
                using: key.key,
                authenticating: associatedData(imei: imei, column: column)
            )
        } catch {
            throw NBGWError(.internalError, "cannot seal the \(column.noun) of IMEI \(imei): \(error)")
        }
        // Why force: a nonce of the default 12 bytes always gives a combined representation.
        return prefix + version + " " + key.id + " " + box.combined!.base64EncodedString()
    }

    /// Opens a sealed value of `column` of the row `imei`.
    ///
    /// - Throws: `SECRETS_KEY_MISMATCH` naming the IMEI and what to do: sealed under another key
    ///   (the ids differ), altered or moved from another row (the tag does not verify), or of a
    ///   version or shape this nbgw does not know. Never returns the stored text as plaintext.
    ///
    /// - Parameter device: the module's device id, when the caller knows it, for the messages.
    static func open(
        _ stored: String,
        imei: String,
        column: Column,
        key: StoreSecretsKey,
        device: String? = nil
    ) throws(NBGWError) -> String {
        let what =
            "the \(column.noun) of IMEI \(imei)\(device.map { " (device \($0))" } ?? "") (table module_credential)"
        let fields = stored.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 4, fields[0] == "sealed" else {
            throw NBGWError(
                .secretsKeyMismatch,
                "\(what) is not a sealed value nbgw can read; restore the store from a backup"
            )
        }
        guard fields[1] == Substring(version) else {
            throw NBGWError(
                .secretsKeyMismatch,
                "\(what) is sealed in format \(String(fields[1]).escapedForDisplay(limit: 8)), which this nbgw "
                    + "does not know: run the nbgw that wrote it (a newer version)"
            )
        }
        guard fields[2] == Substring(key.id) else {
            throw NBGWError(
                .secretsKeyMismatch,
                "\(what) is sealed under secrets key \(String(fields[2]).escapedForDisplay(limit: 8)), but this "
                    + "process holds key \(key.id): give nbgwd the key the store was sealed with (/etc/nbgw/"
                    + "credentials/secrets.key, or [store] secrets_key), or, if that key is lost, register the module "
                    + "again once its thing is removed from the cloud (docs/operations.md, \"Module credentials\")"
            )
        }
        guard let combined = Data(base64Encoded: String(fields[3])),
            let box = try? AES.GCM.SealedBox(combined: combined),
            let plain = try? AES.GCM.open(
                box,
                using: key.key,
                authenticating: associatedData(imei: imei, column: column)
            ),
            let text = String(bytes: plain, encoding: .utf8)
        else {
            throw NBGWError(
                .secretsKeyMismatch,
                "\(what) does not open with secrets key \(key.id) although it names that key: it was altered, or "
                    + "copied from another module's row; restore the store from a backup, or register the module again"
            )
        }
        return text
    }
}
