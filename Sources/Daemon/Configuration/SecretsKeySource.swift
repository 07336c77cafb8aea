import Foundation
import NBGWCore
import Registry

#if canImport(Glibc)
import Glibc
#endif

/// Where a process finds the store's secrets key, the key the modules' credentials are sealed
/// under (docs/operations.md, "Module credentials"). The first that applies wins:
///
/// 1. a path named for this process: `[store] secrets_key` (nbgwd), `$NBGW_SECRETS_KEY` (the CLI);
/// 2. for the CLI, the daemon's own `[store] secrets_key`, when this user may read the key;
/// 3. `$CREDENTIALS_DIRECTORY/secrets.key`: what the unit's `LoadCredential=` hands nbgwd;
/// 4. ``packagedPath``, where the package keeps the key, when this process may read it (root).
///
/// Otherwise the process has none, and ``Registry/SecretsKeyAccess/unavailable(_:)`` says why. A
/// key that is found but wrong (its mode, owner or content) is an error, never skipped: the next
/// source could hold another key, and credentials sealed under one do not open under the other.
public enum SecretsKeySource {
    /// The credential's name in the unit (`LoadCredential=secrets.key:…`) and so its file name in
    /// `$CREDENTIALS_DIRECTORY`.
    public static let credentialName = "secrets.key"
    /// Where the package's postinst makes the key (root:root 0600, in a 0700 directory).
    public static let packagedPath = "/etc/nbgw/credentials/secrets.key"
    /// The CLI's variable naming a key file (a developer's store, a root shell with another key).
    public static let environmentKey = "NBGW_SECRETS_KEY"

    /// The key this process may use, or why it has none.
    ///
    /// - Parameters:
    ///   - explicit: a path this process was told to use (nbgwd's `[store] secrets_key`, the CLI's
    ///     `$NBGW_SECRETS_KEY`): a key that cannot be loaded is an error.
    ///   - daemonConfigured: the daemon's `[store] secrets_key` as the CLI reads it: a key this user
    ///     may not read (an operator) means no key, not an error.
    ///   - environment: the process environment (`CREDENTIALS_DIRECTORY`).
    /// - Throws: `SECRETS_KEY_MISSING` or `INVALID_ARGUMENT` from ``Registry/StoreSecretsKey/load(path:)``.
    public static func resolve(
        explicit: String?,
        daemonConfigured: String? = nil,
        environment: [String: String]
    ) throws(NBGWError) -> SecretsKeyAccess {
        if let explicit, !explicit.isEmpty {
            return .key(try StoreSecretsKey.load(path: explicit))
        }
        if let configured = daemonConfigured, !configured.isEmpty {
            do {
                return .key(try StoreSecretsKey.load(path: configured))
            } catch  where error.code == .secretsKeyMissing {
                return .unavailable(error.message)
            }
        }
        if let directory = environment["CREDENTIALS_DIRECTORY"], directory.hasPrefix("/") {
            let path = directory + "/" + credentialName
            if FileManager.default.fileExists(atPath: path) {
                return .key(try StoreSecretsKey.load(path: path))
            }
        }
        var info = stat()
        if stat(packagedPath, &info) == 0 {
            do {
                return .key(try StoreSecretsKey.load(path: packagedPath))
            } catch  where error.code == .secretsKeyMissing {
                return .unavailable(error.message)
            }
        }
        let denied = errno == EACCES
        let packaged =
            denied
            ? "user \(SecretFileAccess.userName(geteuid())) may not read \(packagedPath) (root only)"
            : "there is no \(packagedPath)"
        return .unavailable(
            "none named ([store] secrets_key, $\(environmentKey)), none from systemd ($CREDENTIALS_DIRECTORY/"
                + "\(credentialName)), and \(packaged)"
        )
    }
}
