/// The keys of systemd 252's rules language (`parse_token()` in `src/udev/udev-rules.c`): which
/// operators and `{ATTR}` each accepts, and the checks on assigned values.
enum UdevRulesKeyCatalogue {
    typealias Token = UdevRulesFile.Token
    typealias Problem = UdevRulesFile.Problem

    enum Attribute {
        case forbidden
        case required
        case optional
        case oneOf(Set<String>)
    }

    struct Key {
        var attribute: Attribute
        var operators: Set<UdevRulesFile.Operator>
        /// Whether an assigned value goes through substitution checks.
        var formatted: Bool = true
    }

    static let match: Set<UdevRulesFile.Operator> = [.match, .nomatch]
    static let assignOnly: Set<UdevRulesFile.Operator> = [.assign, .assignFinal]
    static let all = Set(UdevRulesFile.Operator.allCases)

    static let keys: [String: Key] = [
        "ACTION": Key(attribute: .forbidden, operators: match),
        "DEVPATH": Key(attribute: .forbidden, operators: match),
        "KERNEL": Key(attribute: .forbidden, operators: match),
        "SYMLINK": Key(attribute: .forbidden, operators: all),
        "NAME": Key(attribute: .forbidden, operators: match.union(assignOnly)),
        "ENV": Key(attribute: .required, operators: match.union([.assign, .add, .assignFinal])),
        "CONST": Key(attribute: .oneOf(["arch", "virt"]), operators: match),
        "TAG": Key(attribute: .forbidden, operators: all),
        "SUBSYSTEM": Key(attribute: .forbidden, operators: match),
        "DRIVER": Key(attribute: .forbidden, operators: match),
        "ATTR": Key(attribute: .required, operators: match.union(assignOnly)),
        "SYSCTL": Key(attribute: .required, operators: match.union(assignOnly)),
        "KERNELS": Key(attribute: .forbidden, operators: match),
        "SUBSYSTEMS": Key(attribute: .forbidden, operators: match),
        "DRIVERS": Key(attribute: .forbidden, operators: match),
        "ATTRS": Key(attribute: .required, operators: match),
        "TAGS": Key(attribute: .forbidden, operators: match),
        "TEST": Key(attribute: .optional, operators: match),
        "PROGRAM": Key(attribute: .forbidden, operators: match),
        // `IMPORT{builtin}="usb_id"` is the usual spelling: udev treats = as == for IMPORT.
        "IMPORT": Key(
            attribute: .oneOf(["program", "builtin", "file", "db", "cmdline", "parent"]),
            operators: match.union([.assign])
        ),
        "RESULT": Key(attribute: .forbidden, operators: match),
        "OPTIONS": Key(attribute: .forbidden, operators: [.assign, .add, .assignFinal], formatted: false),
        "OWNER": Key(attribute: .forbidden, operators: assignOnly),
        "GROUP": Key(attribute: .forbidden, operators: assignOnly),
        "MODE": Key(attribute: .forbidden, operators: assignOnly),
        "SECLABEL": Key(attribute: .required, operators: [.assign, .add, .assignFinal]),
        "RUN": Key(attribute: .oneOf(["program", "builtin"]), operators: [.assign, .add, .assignFinal]),
        "GOTO": Key(attribute: .forbidden, operators: [.assign], formatted: false),
        "LABEL": Key(attribute: .forbidden, operators: [.assign], formatted: false),
    ]

    /// ENV keys udev owns: a rule may match them but not assign them.
    static let readOnlyEnvironment: Set<String> = [
        "ACTION", "DEVLINKS", "DEVNAME", "DEVPATH", "DEVTYPE", "DRIVER", "IFINDEX", "MAJOR", "MINOR", "SEQNUM",
        "SUBSYSTEM", "TAGS",
    ]

    /// udev's built-in commands (`udevadm test-builtin --help`).
    static let builtins: Set<String> = [
        "blkid", "btrfs", "hwdb", "input_id", "keyboard", "kmod", "net_id", "net_setup_link", "path_id", "usb_id",
        "uaccess",
    ]

    /// `$name` substitutions and their `%x` spellings.
    static let substitutions: Set<String> = [
        "devnode", "attr", "sysfs", "env", "kernel", "number", "driver", "devpath", "id", "major", "minor", "result",
        "parent", "name", "links", "root", "sys", "tempnode",
    ]
    static let percentSubstitutions: Set<Character> = [
        "N", "s", "E", "k", "n", "b", "M", "m", "c", "P", "D", "r", "S", "p", "%",
    ]
    /// Substitutions that need `{NAME}`.
    static let needsArgument: Set<String> = ["attr", "sysfs", "env"]

    static func check(_ tokens: [Token], line: Int) throws(Problem) {
        guard !tokens.isEmpty else { throw Problem(line: line, message: "empty rule") }
        for token in tokens {
            guard let key = keys[token.key] else {
                throw Problem(line: line, message: "unknown key \(token.key) in \(token)")
            }
            switch key.attribute {
            case .forbidden where token.attribute != nil:
                throw Problem(line: line, message: "\(token.key) takes no {attribute}: \(token)")
            case .required where token.attribute == nil:
                throw Problem(line: line, message: "\(token.key) needs an {attribute}: \(token)")
            case .oneOf(let allowed):
                guard let attribute = token.attribute else {
                    if token.key == "RUN" { break }
                    throw Problem(line: line, message: "\(token.key) needs one of \(allowed.sorted()): \(token)")
                }
                guard allowed.contains(attribute) else {
                    throw Problem(line: line, message: "\(token.key){\(attribute)} is not one of \(allowed.sorted())")
                }
            default:
                break
            }
            guard key.operators.contains(token.op) else {
                throw Problem(line: line, message: "\(token.key) does not take \(token.op.rawValue): \(token)")
            }
            if token.key == "ENV", !token.op.isMatch, let name = token.attribute, readOnlyEnvironment.contains(name) {
                throw Problem(line: line, message: "ENV{\(name)} is udev's own and cannot be assigned")
            }
            if token.key == "IMPORT", token.attribute == "builtin" {
                let name = token.value.split(separator: " ").first.map(String.init) ?? ""
                guard builtins.contains(name) else {
                    throw Problem(line: line, message: "unknown builtin \(name.debugDescription) in \(token)")
                }
            }
            if token.key == "GOTO" || token.key == "LABEL" {
                guard !token.value.isEmpty,
                    token.value.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" })
                else {
                    throw Problem(
                        line: line,
                        message: "\(token.key) name \(token.value.debugDescription) is not a plain word"
                    )
                }
            }
            if token.key == "MODE", !token.op.isMatch {
                guard token.value.count >= 3, token.value.count <= 4,
                    token.value.allSatisfy({ ("0"..."7").contains($0) })
                else {
                    throw Problem(line: line, message: "MODE \(token.value.debugDescription) is not an octal mode")
                }
            }
            if token.op.isMatch {
                try checkPattern(token, line: line)
            } else if key.formatted {
                try checkSubstitutions(token, line: line)
            }
        }
        if tokens.contains(where: { $0.key == "LABEL" }), tokens.count > 1 {
            throw Problem(line: line, message: "LABEL must stand alone on its line")
        }
    }

    /// Glob patterns: brackets balanced; `|` alternatives not empty unless the whole value is.
    static func checkPattern(_ token: Token, line: Int) throws(Problem) {
        var depth = 0
        for character in token.value {
            if character == "[" { depth += 1 }
            if character == "]" { depth = max(0, depth - 1) }
        }
        guard depth == 0 else { throw Problem(line: line, message: "unbalanced [ in pattern \(token)") }
        if !token.value.isEmpty,
            token.value.split(separator: "|", omittingEmptySubsequences: false).contains(where: \.isEmpty)
        {
            throw Problem(line: line, message: "empty alternative in pattern \(token)")
        }
    }

    /// `$name`, `$name{arg}`, `$$`, `%x`, `%x{arg}`, `%%`.
    static func checkSubstitutions(_ token: Token, line: Int) throws(Problem) {
        let characters = Array(token.value)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            index += 1
            if character == "$" {
                guard index < characters.count else {
                    throw Problem(line: line, message: "lone $ at the end of \(token)")
                }
                if characters[index] == "$" {
                    index += 1
                    continue
                }
                var name = ""
                while index < characters.count, characters[index].isLetter {
                    name.append(characters[index])
                    index += 1
                }
                guard substitutions.contains(name) else {
                    throw Problem(line: line, message: "unknown substitution $\(name) in \(token)")
                }
                let hasArgument = index < characters.count && characters[index] == "{"
                if hasArgument {
                    guard let close = characters[index...].firstIndex(of: "}"), close > index + 1 else {
                        throw Problem(line: line, message: "unterminated or empty ${...} in \(token)")
                    }
                    index = close + 1
                } else if needsArgument.contains(name) {
                    throw Problem(line: line, message: "$\(name) needs {NAME} in \(token)")
                }
            } else if character == "%" {
                guard index < characters.count, percentSubstitutions.contains(characters[index]) else {
                    let letter = index < characters.count ? String(characters[index]) : ""
                    throw Problem(line: line, message: "unknown substitution %\(letter) in \(token)")
                }
                let letter = characters[index]
                index += 1
                if index < characters.count, characters[index] == "{" {
                    guard let close = characters[index...].firstIndex(of: "}"), close > index + 1 else {
                        throw Problem(line: line, message: "unterminated or empty %\(letter){...} in \(token)")
                    }
                    index = close + 1
                } else if letter == "s" || letter == "E" {
                    throw Problem(line: line, message: "%\(letter) needs {NAME} in \(token)")
                }
            }
        }
    }
}
