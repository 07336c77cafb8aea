import ArgumentParser
import Foundation
import Ingest
import Registry

/// `nbgw apikeys`: operator API keys for the ingest API (issue 7).
struct APIKeys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apikeys",
        abstract: "Operator API keys for the ingest HTTP API (stored hashed; shown once at creation).",
        subcommands: [APIKeysCreate.self, APIKeysList.self, APIKeysRevoke.self]
    )
}

struct APIKeysCreate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create a key; prints it once (only its SHA-256 digest is stored)."
    )

    @OptionGroup var store: StoreOptions

    @Option(help: "The key's name (unique, 1-64 of A-Z a-z 0-9 . _ -); recorded as the operator of its binds.")
    var name: String

    @Option(
        help: """
            full (every route) or bind (parse a QR, bind, read a pairing result: for a scanner or a \
            station, which then cannot list bindings, read device trails or unbind). Fixed at creation.
            """
    )
    var scope: String = "full"

    func validate() throws {
        guard Registry.APIKey.Scope(rawValue: scope) != nil else {
            throw ValidationError("--scope must be full or bind")
        }
    }

    func run() async throws {
        try await Output.run(json: store.json) {
            let created = try IngestAPIKeys.create(
                name: name,
                scope: Registry.APIKey.Scope(rawValue: scope) ?? .bind,
                registry: try store.openRegistry()
            )
            if store.json {
                Output.json(created)
            } else {
                Output.line(
                    "created API key \(created.name) (scope \(created.scope.rawValue)); it is shown only now, "
                        + "store it safely:"
                )
                Output.line(created.key)
            }
        }
    }
}

struct APIKeysList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List keys (never the keys).")

    @OptionGroup var store: StoreOptions

    func run() async throws {
        try await Output.run(json: store.json) {
            let keys = try store.openExistingRegistry().apiKeys.all()
            if store.json {
                Output.json(["apiKeys": keys])
            } else {
                Output.table(
                    ["NAME", "PREFIX", "SCOPE", "CREATED", "LAST USED", "REVOKED"],
                    keys.map {
                        [
                            $0.name, $0.prefix, $0.scope.rawValue, Output.timestamp($0.createdAt),
                            $0.lastUsedAt.map(Output.timestamp) ?? "-", $0.revokedAt.map(Output.timestamp) ?? "-",
                        ]
                    }
                )
            }
        }
    }
}

struct APIKeysRevoke: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Revoke a key: every request with it is refused (401) from now on."
    )

    @OptionGroup var store: StoreOptions

    @Argument(help: "The key's name.")
    var name: String

    func run() async throws {
        try await Output.run(json: store.json) {
            let key = try store.openRegistry().apiKeys.revoke(name: name)
            if store.json {
                Output.json(key)
            } else {
                Output.line("revoked API key \(key.name)")
            }
        }
    }
}
