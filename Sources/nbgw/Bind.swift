import ArgumentParser
import Foundation
import Pairing
import Provisioning
import Registry

struct Bind: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bind",
        abstract: "Bind the NB-IoT device a scanned QR names to an account's home (strong binding).",
        discussion: """
            Rules: the account must be an owner of the home; a device bound to one account cannot be bound \
            to another until it is unbound; binding again to the same account and home prints `unchanged`. \
            A pairing token (nbgw token create) is valid 10 minutes and dies with the bind it is used for; \
            without --token one is issued for this bind.
            """
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var who: OperatorOption

    @Option(help: "The QR payload exactly as scanned.")
    var qr: String

    @Option(help: "The owner account to bind to.")
    var account: String

    @Option(help: "The home (space) to bind into.")
    var home: String

    @Option(help: "A pairing token from `nbgw token create --home HOME`.")
    var token: String?

    @Option(help: "Activation timeout in seconds.")
    var timeout: Double = 120

    func validate() throws {
        guard timeout > 0, timeout <= 3600 else {
            throw ValidationError("--timeout must be between 0 and 3600 seconds")
        }
    }

    struct Report: Encodable {
        var status: String
        var deviceId: String
        var imei: String
        var account: String
        var home: String
        var boundAt: Date
        var source: String
        var `operator`: String?
    }

    func run() async throws {
        try await Output.run(json: store.json) {
            let registry = try store.openRegistry()
            let service = BindingService(cloud: store.cloud(registry), registry: registry)
            let outcome = try await service.bind(
                qr: qr,
                account: account,
                home: home,
                token: token,
                source: .cli,
                operator: who.resolved,
                timeout: .milliseconds(Int64(timeout * 1000))
            )
            let binding = outcome.binding
            if store.json {
                Output.json(
                    Report(
                        status: outcome.status.rawValue,
                        deviceId: binding.deviceID,
                        imei: binding.imei,
                        account: binding.account,
                        home: binding.home,
                        boundAt: binding.boundAt,
                        source: binding.source.rawValue,
                        operator: binding.operator
                    )
                )
            } else {
                Output.line(
                    "\(outcome.status.rawValue): device \(binding.deviceID) (IMEI \(binding.imei)) → account "
                        + "\(binding.account), home \(binding.home)"
                )
            }
        }
    }
}

struct Unbind: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unbind",
        abstract: "Remove a device's binding so another account can bind it."
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var who: OperatorOption

    @Argument(help: "The device id.")
    var device: String

    struct Report: Encodable {
        var status = "unbound"
        var deviceId: String
        var account: String
        var home: String
    }

    func run() async throws {
        try await Output.run(json: store.json) {
            let registry = try store.openRegistry()
            let removed = try registry.unbind(deviceID: device, source: .cli, operator: who.resolved)
            if store.json {
                Output.json(Report(deviceId: removed.deviceID, account: removed.account, home: removed.home))
            } else {
                Output.line("unbound: device \(removed.deviceID) from account \(removed.account), home \(removed.home)")
            }
        }
    }
}

struct Token: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Pairing tokens (valid 10 minutes, single use).",
        subcommands: [TokenCreate.self]
    )
}

struct TokenCreate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Issue a pairing token for a home."
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var who: OperatorOption

    @Option(help: "The home the token is for.")
    var home: String

    struct Report: Encodable {
        var token: String
        var home: String
        var expiresAt: Date
    }

    func run() async throws {
        try await Output.run(json: store.json) {
            let token = try store.openRegistry().createToken(home: home, operator: who.resolved)
            if store.json {
                Output.json(Report(token: token.token, home: token.home, expiresAt: token.expiresAt))
            } else {
                Output.line(token.token)
                FileHandle.standardError.write(
                    Data("valid until \(Output.timestamp(token.expiresAt)), for one bind into \(token.home)\n".utf8)
                )
            }
        }
    }
}
