import ArgumentParser
import Console
import Foundation
import NBGWCore
import Registry

/// `nbgw operators`: people who sign in to the web console (docs/console.md).
struct Operators: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "operators",
        abstract: "People who sign in to the web console (passwords stored as scrypt hashes).",
        subcommands: [
            OperatorsAdd.self, OperatorsList.self, OperatorsUnlock.self, OperatorsSignOut.self, OperatorsRemove.self,
        ]
    )
}

struct OperatorsAdd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add an operator; asks for the password twice without echo (or reads one line from a pipe).",
        discussion: """
            --generate makes a random password and prints it once instead (for a first sign-in). \
            The password never goes on the command line.
            """
    )

    @OptionGroup var store: StoreOptions

    @Argument(help: "The operator's name (1-64 characters).")
    var name: String

    @Option(help: "admin (also acts on modems), operator (binds, batches, lists, unbinds) or binder (binds only).")
    var role: String = "operator"

    @Flag(help: "Set a new password (and role) for an existing operator; lifts a lock-out and ends their sessions.")
    var replace = false

    @Flag(help: "Generate a random password and print it once.")
    var generate = false

    func validate() throws {
        guard ConsoleOperator.Role(rawValue: role) != nil else {
            throw ValidationError("--role must be admin, operator or binder")
        }
    }

    func run() async throws {
        try await Output.run(json: store.json) {
            let password: String
            if generate {
                password = OperatorPassword.generate()
            } else {
                password = try OperatorPassword.read(prompt: "password for \(name): ", confirm: true)
            }
            guard password.count >= ConsolePasswordHasher.minimumLength,
                password.utf8.count <= ConsolePasswordHasher.maximumLength
            else {
                throw NBGWError(
                    .invalidArgument,
                    "the password must be \(ConsolePasswordHasher.minimumLength) to "
                        + "\(ConsolePasswordHasher.maximumLength) characters; try again (or --generate)"
                )
            }
            let hash = try ConsolePasswordHasher.standard.hash(password)
            let registry = try store.openRegistry()
            // The schema's trigger ends the sessions in the same transaction; counted to say so.
            let sessions = replace ? (try registry.console.sessionCounts()[name] ?? 0) : 0
            let added = try registry.console.addOperator(
                name: name,
                role: ConsoleOperator.Role(rawValue: role) ?? .operator,
                passwordHash: hash,
                replace: replace
            )
            if store.json {
                var value = ["name": added.name, "role": added.role.rawValue]
                if generate { value["password"] = password }
                if replace { value["sessionsEnded"] = String(sessions) }
                Output.json(value)
            } else {
                Output.line(
                    "console operator \(added.name) (\(added.role.rawValue)) \(replace ? "updated" : "added")"
                        + (replace ? "; \(Self.sessions(sessions)) ended" : "")
                )
                if generate { Output.line("password (shown only now): \(password)") }
            }
        }
    }
}

extension OperatorsAdd {
    static func sessions(_ count: Int) -> String { count == 1 ? "1 console session" : "\(count) console sessions" }
}

struct OperatorsList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List console operators.")

    @OptionGroup var store: StoreOptions

    func run() async throws {
        try await Output.run(json: store.json) {
            let operators = try store.openExistingRegistry().console.operators()
            if store.json {
                Output.json([
                    "operators": operators.map {
                        [
                            "name": $0.name, "role": $0.role.rawValue, "failedAttempts": String($0.failedAttempts),
                            "lockedUntil": $0.lockedUntil.map(Output.timestamp) ?? "",
                        ]
                    }
                ])
            } else {
                Output.table(
                    ["NAME", "ROLE", "CREATED", "LAST SIGN-IN", "LOCKED UNTIL"],
                    operators.map {
                        [
                            $0.name, $0.role.rawValue, Output.timestamp($0.createdAt),
                            $0.lastSignInAt.map(Output.timestamp) ?? "-",
                            $0.lockedUntil.flatMap { $0 > Date() ? Output.timestamp($0) : nil } ?? "-",
                        ]
                    }
                )
            }
        }
    }
}

struct OperatorsUnlock: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unlock", abstract: "Lift a lock-out.")

    @OptionGroup var store: StoreOptions

    @Argument var name: String

    func run() async throws {
        try await Output.run(json: store.json) {
            guard try store.openExistingRegistry().console.unlockOperator(named: name) else {
                throw NBGWError(.notFound, "no console operator \(name.escapedForDisplay()) (`nbgw operators list`)")
            }
            Output.line("console operator \(name) unlocked")
        }
    }
}

struct OperatorsSignOut: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signout",
        abstract: "End every console session of an operator now (a lost phone, a shift that ended)."
    )

    @OptionGroup var store: StoreOptions

    @Argument var name: String

    func run() async throws {
        try await Output.run(json: store.json) {
            let registry = try store.openExistingRegistry()
            guard try registry.console.findOperator(named: name) != nil else {
                throw NBGWError(.notFound, "no console operator \(name.escapedForDisplay()) (`nbgw operators list`)")
            }
            let ended = try registry.console.endSessions(operatorName: name)
            if store.json {
                Output.json(["name": name, "sessionsEnded": String(ended)])
            } else {
                Output.line("console operator \(name): \(OperatorsAdd.sessions(ended)) ended")
            }
        }
    }
}

struct OperatorsRemove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove an operator (their trail stays; their console sessions end at once)."
    )

    @OptionGroup var store: StoreOptions

    @Argument var name: String

    func run() async throws {
        try await Output.run(json: store.json) {
            let registry = try store.openExistingRegistry()
            let sessions = try registry.console.sessionCounts()[name] ?? 0
            // The schema's trigger deletes the sessions in the same transaction as the operator.
            guard try registry.console.removeOperator(named: name) else {
                throw NBGWError(.notFound, "no console operator \(name.escapedForDisplay()) (`nbgw operators list`)")
            }
            if store.json {
                Output.json(["name": name, "removed": "true", "sessionsEnded": String(sessions)])
            } else {
                Output.line("console operator \(name) removed; \(OperatorsAdd.sessions(sessions)) ended")
            }
        }
    }
}

/// Reading a password without echo, or making one.
enum OperatorPassword {
    /// 20 characters from a 54-character alphabet without look-alikes (about 115 bits).
    static func generate() -> String {
        let alphabet = Array("abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<20).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }

    /// From a terminal: prompts on stderr with echo off (termios), twice when `confirm`. From a
    /// pipe: one line, no prompt.
    static func read(prompt: String, confirm: Bool) throws(NBGWError) -> String {
        guard isatty(STDIN_FILENO) == 1 else {
            guard let line = readLine(strippingNewline: true) else {
                throw NBGWError(.missingField, "no password on standard input; type it, pipe it, or pass --generate")
            }
            return line
        }
        let first = try readHidden(prompt)
        if confirm {
            let second = try readHidden("again: ")
            guard first == second else { throw NBGWError(.invalidArgument, "the two passwords differ; try again") }
        }
        return first
    }

    private static func readHidden(_ prompt: String) throws(NBGWError) -> String {
        FileHandle.standardError.write(Data(prompt.utf8))
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else {
            throw NBGWError(.internalError, "cannot read the terminal's settings: \(String(cString: strerror(errno)))")
        }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        quiet.c_lflag |= tcflag_t(ECHONL)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
        defer { tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved) }
        guard let line = readLine(strippingNewline: true) else {
            throw NBGWError(.missingField, "no password typed")
        }
        return line
    }
}
