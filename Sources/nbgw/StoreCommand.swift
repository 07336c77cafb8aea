import ArgumentParser
import Foundation
import NBGWCore
import Registry

/// `nbgw store`: look after the store file itself (docs/operations.md, "Backup and restore").
struct StoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Back up, check and rekey the SQLite store.",
        discussion: """
            backup and check open the store read-only: they never create or migrate it, and neither \
            holds up the daemon's writes. Restore: docs/operations.md, "Backup and restore". rekey \
            seals the modules' credentials under a new secrets key: docs/operations.md, "Module \
            credentials".
            """,
        subcommands: [StoreBackup.self, StoreCheck.self, StoreRekey.self]
    )
}

/// `nbgw store rekey --new-key FILE`: seal every module credential again under another secrets key
/// (docs/operations.md, "Module credentials").
struct StoreRekey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rekey",
        abstract: "Seal the modules' credentials under a new secrets key (as root, nbgwd stopped).",
        discussion: """
            Opens every module credential with the current secrets key (the one this user may read: \
            $NBGW_SECRETS_KEY, [store] secrets_key, or /etc/nbgw/credentials/secrets.key) and seals it \
            under the key in FILE, in one transaction; one that does not open changes nothing. Then put \
            FILE in the current key's place before starting nbgwd. Run it with nbgwd stopped: a daemon \
            running meanwhile would seal new credentials under the old key.
            """
    )

    @Option(
        name: .customLong("new-key"),
        help: ArgumentHelp("The new key file (32 random bytes, mode 0600).", valueName: "file")
    )
    var newKey: String

    @OptionGroup var store: StoreOptions

    struct Report: Encodable {
        var resealed: Int
        var from: String
        var to: String
    }

    func run() async throws {
        try await Output.run(json: store.json) {
            if try DaemonControl.connectIfRunning() != nil {
                throw NBGWError(
                    .commandRefused,
                    "nbgwd is running (it answers on \(DaemonControl.socketPath())): stop it first (`systemctl stop "
                        + "nbgwd`), rekey, put the new key in place, then start it"
                )
            }
            let next = try StoreSecretsKey.load(path: newKey)
            let registry = try store.openExistingRegistry()
            guard let current = registry.secretsKey.key else {
                throw NBGWError(
                    .secretsKeyMissing,
                    "cannot rekey: this user holds no secrets key to open the credentials with "
                        + "(\(registry.secretsKey)); run it as root, or name the current key with NBGW_SECRETS_KEY"
                )
            }
            let resealed = try registry.directory.resealCredentials(under: next)
            let report = Report(resealed: resealed, from: current.id, to: next.id)
            if store.json {
                Output.json(report)
            } else {
                Output.line(
                    "resealed \(resealed) credential values from secrets key \(current.id) to \(next.id); now replace "
                        + "the current key file with \(newKey) before starting nbgwd"
                )
            }
        }
    }
}

/// `nbgw store backup FILE`: an online copy through SQLite's backup API, checked before it gets its name.
struct StoreBackup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the store to a new FILE while it is in use, then check the copy.",
        discussion: """
            The copy is the store as of one commit (SQLite's online backup API), written beside FILE \
            and checked with PRAGMA integrity_check before it is named FILE (mode 0600); FILE must not \
            exist. Open it with `nbgw --db FILE …`.
            """
    )

    @Argument(help: ArgumentHelp("The backup file to create.", valueName: "file"))
    var file: String

    @OptionGroup var store: StoreOptions

    func run() async throws {
        try await Output.run(json: store.json) {
            let report = try Registry.backup(storeAt: store.path, to: file)
            if store.json {
                Output.json(report)
            } else {
                Output.line("backed up \(report.source) to \(report.destination)")
                Output.line(StoreCheck.summary(report.check))
            }
        }
    }
}

/// `nbgw store check`: SQLite's integrity check, foreign keys and the schema's migrations.
struct StoreCheck: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the store (or a backup, with --db FILE): integrity, foreign keys, schema.",
        discussion: """
            Exit 0 when SQLite finds nothing wrong; 70 (STORE_UNAVAILABLE) with the problems when it does: \
            restore from a backup (docs/operations.md).
            """
    )

    @OptionGroup var store: StoreOptions

    func run() async throws {
        try await Output.run(json: store.json) {
            let report = try Registry.check(path: store.path)
            guard report.isSound else {
                throw NBGWError(
                    .storeUnavailable,
                    "\(report.path) is damaged (integrity_check: "
                        + report.integrity.prefix(5).joined(separator: "; ")
                        + (report.foreignKeyViolations > 0
                            ? "; \(report.foreignKeyViolations) broken foreign keys" : "")
                        + "); stop nbgwd and restore the latest good backup (docs/operations.md, \"Backup and restore\")"
                )
            }
            if store.json {
                Output.json(report)
            } else {
                Output.line(Self.summary(report))
            }
        }
    }

    /// One human paragraph about a sound store.
    static func summary(_ report: StoreCheckReport) -> String {
        let schema =
            switch report.schema {
            case .current: "schema current (\(report.appliedMigrations.last ?? "-"))"
            case .older:
                "schema older than this nbgw (\(report.appliedMigrations.last ?? "none")): migrated when next opened"
            case .newer: "schema newer than this nbgw (\(report.appliedMigrations.last ?? "-")): upgrade nbgw to use it"
            }
        let rows = Registry.countedTables.compactMap { table in
            report.rows[table].map { "\(table) \($0)" }
        }
        return """
            \(report.path): integrity ok, foreign keys ok, \(schema)
            \(ByteCountFormatter.string(fromByteCount: report.bytes, countStyle: .file)); rows: \
            \(rows.joined(separator: ", "))
            """
    }
}
