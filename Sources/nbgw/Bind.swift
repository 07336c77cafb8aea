import ArgumentParser
import Foundation
import Provisioning
import Registry

struct Bind: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bind",
        abstract: "Bind the NB-IoT device a scanned QR names (or every row of a CSV) to an account's home.",
        discussion: """
            Rules: the account must be an owner of the home; a device bound to one account cannot be bound \
            to another until it is unbound; binding again to the same account and home is `unchanged`. \
            A pairing token (nbgw token create) is valid 10 minutes and dies with the bind it is used for; \
            without --token the bind uses none (docs/cli.md).

            --csv FILE binds every row: columns by header name, `qr` required, `account`, `home` (else \
            --account/--home), `ref`/`note` carried into the report (default FILE.report.csv). Rows commit \
            in chunks with the job's progress: after a crash or Ctrl-C, run the same command to resume.
            """
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var cloudOptions: CloudOptions
    @OptionGroup var who: OperatorOption

    @Option(help: "The QR payload exactly as scanned.")
    var qr: String?

    @Option(help: "A CSV file of scanned payloads (header: qr[,account,home,ref,note]).")
    var csv: String?

    @Option(help: "A photo or scan (PNG, JPEG): bind the device of every QR code zbar reads in it.")
    var image: String?

    @Option(help: "The owner account to bind to (for --csv: rows without an account column value).")
    var account: String?

    @Option(help: "The home (space) to bind into (for --csv: rows without a home column value).")
    var home: String?

    @Option(help: "A pairing token from `nbgw token create --home HOME`.")
    var token: String?

    @Option(help: "Activation timeout in seconds.")
    var timeout: Double = 120

    @Option(help: "--csv: where to write the per-row report (default: FILE.report.csv).")
    var report: String?

    @Flag(name: .customLong("dry-run"), help: "--csv: validate every row against the store, write only the report.")
    var dryRun = false

    @Flag(help: "--csv: abandon an unfinished job for this file and start over.")
    var restart = false

    @Option(name: .customLong("chunk-size"), help: "--csv: rows per transaction.")
    var chunkSize: Int = BatchRequest.defaultChunkSize

    func validate() throws {
        guard [qr, csv, image].compactMap({ $0 }).count == 1 else {
            throw ValidationError("give exactly one of --qr PAYLOAD, --image FILE or --csv FILE")
        }
        if qr != nil || image != nil {
            guard account != nil, home != nil else {
                throw ValidationError("--qr and --image need --account and --home")
            }
            guard report == nil, !dryRun, !restart else {
                throw ValidationError("--report, --dry-run and --restart go with --csv")
            }
        }
        guard (1...1_000_000).contains(chunkSize) else {
            throw ValidationError("--chunk-size must be between 1 and 1000000")
        }
        if csv != nil, token != nil {
            throw ValidationError("--token binds one device; it cannot be used with --csv")
        }
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
        /// With a remote cloud: `synced`, `queued` or `failed`.
        var cloudSync: String?
        var cloudMessage: String?
    }

    func run() async throws {
        if let csv {
            try await runBatch(csv)
            return
        }
        if let image {
            // Every code in the picture, one bind each, in the order zbar found them; the first
            // refusal ends the command with its code (the binds before it stand).
            try await Output.run(json: store.json) {
                for code in try QRImages.read(image) { try await bindOne(code) }
            }
            return
        }
        try await Output.run(json: store.json) { try await bindOne(qr!) }
    }

    func bindOne(_ qr: String) async throws {
        do {
            let registry = try store.openRegistry()
            let wait = try cloudOptions.cloudWait()
            let result = try await cloudOptions.withCloud { cloud in
                try await BindingService(cloud: cloud, registry: registry, cloudWait: wait).bind(
                    qr: qr,
                    account: account!,
                    home: home!,
                    token: token,
                    source: .cli,
                    operator: who.resolved,
                    timeout: .milliseconds(Int64(timeout * 1000))
                )
            }
            let outcome = result.outcome
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
                        operator: binding.operator,
                        cloudSync: result.syncState,
                        cloudMessage: result.syncMessage
                    )
                )
            } else {
                Output.line(
                    "\(outcome.status.rawValue): device \(binding.deviceID) (IMEI \(binding.imei)) → account "
                        + "\(binding.account), home \(binding.home)"
                )
                if let state = result.syncState {
                    Output.line("cloud: \(state)\(result.syncMessage.map { " (\($0))" } ?? "")")
                }
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
    @OptionGroup var cloudOptions: CloudOptions
    @OptionGroup var who: OperatorOption

    @Argument(help: "The device id.")
    var device: String

    struct Report: Encodable {
        var status = "unbound"
        var deviceId: String
        var account: String
        var home: String
        var cloudSync: String?
        var cloudMessage: String?
    }

    func run() async throws {
        try await Output.run(json: store.json) {
            let registry = try store.openRegistry()
            let wait = try cloudOptions.cloudWait()
            let result = try await cloudOptions.withCloud { cloud in
                try await BindingService(cloud: cloud, registry: registry, cloudWait: wait)
                    .unbind(deviceID: device, source: .cli, operator: who.resolved)
            }
            let removed = result.binding
            if store.json {
                Output.json(
                    Report(
                        deviceId: removed.deviceID,
                        account: removed.account,
                        home: removed.home,
                        cloudSync: result.syncState,
                        cloudMessage: result.syncMessage
                    )
                )
            } else {
                Output.line("unbound: device \(removed.deviceID) from account \(removed.account), home \(removed.home)")
                if let state = result.syncState {
                    Output.line("cloud: \(state)\(result.syncMessage.map { " (\($0))" } ?? "")")
                }
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
            let token = try store.openRegistry().directory.createToken(home: home, operator: who.resolved)
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
