import ArgumentParser
import Foundation
import Registry

extension Account.Role: ExpressibleByArgument {}

struct Accounts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accounts",
        abstract: "User accounts (owner or guest).",
        subcommands: [AccountsAdd.self, AccountsList.self]
    )
}

struct AccountsAdd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add an account.")

    @OptionGroup var store: StoreOptions

    @Argument(help: "Account name (unique).")
    var name: String

    @Option(help: "owner (can bind into its homes) or guest (cannot strong-bind).")
    var role: Account.Role = .owner

    func run() async throws {
        try await Output.run(json: store.json) {
            let account = try store.openRegistry().directory.addAccount(name: name, role: role)
            if store.json {
                Output.json(account)
            } else {
                Output.line("added account \(account.name) (\(account.role.rawValue))")
            }
        }
    }
}

struct AccountsList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List accounts.")

    @OptionGroup var store: StoreOptions

    func run() async throws {
        try await Output.run(json: store.json) {
            let accounts = try store.openExistingRegistry().directory.accounts()
            if store.json {
                Output.json(["accounts": accounts])
            } else {
                Output.table(
                    ["NAME", "ROLE", "CREATED"],
                    accounts.map { [$0.name, $0.role.rawValue, Output.timestamp($0.createdAt)] }
                )
            }
        }
    }
}

struct Homes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "homes",
        abstract: "Homes (spaces) devices are bound into.",
        subcommands: [HomesAdd.self, HomesList.self]
    )
}

struct HomesAdd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a home owned by an account.")

    @OptionGroup var store: StoreOptions

    @Argument(help: "Home name (unique).")
    var name: String

    @Option(help: "The owner account.")
    var owner: String

    @Option(name: .customLong("allow-product"), help: "Restrict the home to this product id (repeatable).")
    var allowProducts: [String] = []

    func run() async throws {
        try await Output.run(json: store.json) {
            let home = try store.openRegistry().directory.addHome(
                name: name,
                owner: owner,
                allowedProducts: allowProducts
            )
            if store.json {
                Output.json(home)
            } else {
                let products =
                    home.allowedProducts.isEmpty ? "any product" : home.allowedProducts.joined(separator: ", ")
                Output.line("added home \(home.name) owned by \(home.owner) (\(products))")
            }
        }
    }
}

struct HomesList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List homes.")

    @OptionGroup var store: StoreOptions

    func run() async throws {
        try await Output.run(json: store.json) {
            let homes = try store.openExistingRegistry().directory.homes()
            if store.json {
                Output.json(["homes": homes])
            } else {
                Output.table(
                    ["NAME", "OWNER", "PRODUCTS"],
                    homes.map {
                        [
                            $0.name, $0.owner,
                            $0.allowedProducts.isEmpty ? "any" : $0.allowedProducts.joined(separator: ","),
                        ]
                    }
                )
            }
        }
    }
}

struct Bindings: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bindings",
        abstract: "Device bindings.",
        subcommands: [BindingsList.self]
    )
}

struct BindingsList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List bindings, by device id.")

    @OptionGroup var store: StoreOptions

    @Option(help: "Only this account's bindings.")
    var account: String?

    func run() async throws {
        try await Output.run(json: store.json) {
            let registry = try store.openExistingRegistry()
            // Keyset paging keeps memory flat however many bindings there are.
            var all: [BindingRecord] = []
            var cursor = ""
            if !store.json {
                Output.line(["DEVICE", "IMEI", "ACCOUNT", "HOME", "BOUND", "SOURCE"].joined(separator: "\t"))
            }
            while true {
                let page = try registry.bindings.list(account: account, limit: 1000, after: cursor)
                if store.json {
                    all.append(contentsOf: page)
                } else {
                    for b in page {
                        Output.line(
                            [b.deviceID, b.imei, b.account, b.home, Output.timestamp(b.boundAt), b.source.rawValue]
                                .joined(separator: "\t")
                        )
                    }
                }
                guard let last = page.last, page.count == 1000 else { break }
                cursor = last.deviceID
            }
            if store.json { Output.json(["bindings": all]) }
        }
    }
}
