import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs a parsed rules file over one device the way udevd does for the keys our rules use, so that tests
/// can see what the rules would set on a given port without udevd.
///
/// Semantics followed (systemd 252): within a rule all match keys are tested first and the assignments
/// run only if every one matched; `KERNELS`, `SUBSYSTEMS`, `DRIVERS` and `ATTRS` of one rule must all
/// match on the same device, found by walking from the device itself up through its parents; `$attr{F}`
/// reads the device's attribute or, when it has none, the parent that rule's parent keys selected;
/// a pattern is a glob (`*`, `?`, `[...]`) with `|` alternatives; `GOTO` skips forward to its `LABEL`.
struct UdevRulesEvaluator {
    /// One device of the chain, the event's device first, then its parents.
    struct Device {
        var sysname: String
        var subsystem: String
        var devtype: String?
        var driver: String?
        var attributes: [String: String] = [:]
    }

    /// What the rules did to the event's device.
    struct Outcome {
        var properties: [String: String]
        var symlinks: [String]
        var group: String?
        var mode: String?
        var imported: [String]
    }

    enum EvaluationError: Error, CustomStringConvertible {
        case unsupported(key: String, line: Int)
        var description: String {
            switch self {
            case .unsupported(let key, let line): "line \(line): the evaluator does not model \(key)"
            }
        }
    }

    let file: UdevRulesFile

    /// Evaluates an `add` (or `action`) event for `chain[0]` with udev properties `properties`. `builtins`
    /// gives what each `IMPORT{builtin}` would import.
    func evaluate(
        chain: [Device],
        properties initial: [String: String],
        action: String = "add",
        builtins: [String: [String: String]] = [:]
    ) throws -> Outcome {
        var outcome = Outcome(properties: initial, symlinks: [], group: nil, mode: nil, imported: [])
        var skippingTo: String?
        for rule in file.rules {
            if let target = skippingTo {
                if rule.label == target { skippingTo = nil }
                continue
            }
            if rule.label != nil { continue }
            guard let selected = try matches(rule, chain: chain, outcome: &outcome, action: action, builtins: builtins)
            else { continue }
            for token in rule.tokens where !token.op.isMatch && token.key != "IMPORT" {
                let value = substitute(token.value, chain: chain, selected: selected, properties: outcome.properties)
                switch token.key {
                case "ENV":
                    if value.isEmpty {
                        outcome.properties[token.attribute!] = nil
                    } else {
                        outcome.properties[token.attribute!] = value
                    }
                case "SYMLINK":
                    let names = value.split(separator: " ").map(String.init)
                    switch token.op {
                    case .remove: outcome.symlinks.removeAll { names.contains($0) }
                    case .add: outcome.symlinks += names
                    default: outcome.symlinks = names
                    }
                case "GROUP": outcome.group = value
                case "MODE": outcome.mode = value
                case "GOTO": skippingTo = token.value
                default: throw EvaluationError.unsupported(key: token.key, line: rule.line)
                }
            }
        }
        outcome.properties["DEVLINKS"] =
            outcome.symlinks.isEmpty ? nil : outcome.symlinks.map { "/dev/" + $0 }.joined(separator: " ")
        return outcome
    }

    /// Whether every match key of `rule` holds; returns the parent the parent keys selected (the device
    /// itself when the rule has none), or nil when the rule does not apply.
    private func matches(
        _ rule: UdevRulesFile.Rule,
        chain: [Device],
        outcome: inout Outcome,
        action: String,
        builtins: [String: [String: String]]
    ) throws -> Int? {
        let device = chain[0]
        let parentKeys: Set<String> = ["KERNELS", "SUBSYSTEMS", "DRIVERS", "ATTRS"]
        for token in rule.tokens where token.op.isMatch || token.key == "IMPORT" {
            if parentKeys.contains(token.key) { continue }
            let value: String?
            switch token.key {
            case "ACTION": value = action
            case "SUBSYSTEM": value = device.subsystem
            case "KERNEL": value = device.sysname
            case "DRIVER": value = device.driver
            case "ATTR": value = device.attributes[token.attribute!]
            case "ENV": value = outcome.properties[token.attribute!]
            case "IMPORT":
                guard token.attribute == "builtin", let result = builtins[token.value] else {
                    throw EvaluationError.unsupported(
                        key: "IMPORT{\(token.attribute ?? "")}=\(token.value)",
                        line: rule.line
                    )
                }
                outcome.imported.append(token.value)
                for (name, imported) in result { outcome.properties[name] = imported }
                if token.op == .nomatch { return nil }
                continue
            default:
                throw EvaluationError.unsupported(key: token.key, line: rule.line)
            }
            if Self.matches(token.value, value ?? "") != (token.op == .match) { return nil }
        }
        let parentTokens = rule.tokens.filter { parentKeys.contains($0.key) }
        guard !parentTokens.isEmpty else { return 0 }
        for (index, candidate) in chain.enumerated() {
            let holds = parentTokens.allSatisfy { token in
                let value: String? =
                    switch token.key {
                    case "KERNELS": candidate.sysname
                    case "SUBSYSTEMS": candidate.subsystem
                    case "DRIVERS": candidate.driver
                    default: candidate.attributes[token.attribute!]
                    }
                // An attribute the device lacks matches nothing, not even "".
                if token.key == "ATTRS", value == nil { return false }
                return Self.matches(token.value, value ?? "") == (token.op == .match)
            }
            if holds { return index }
        }
        return nil
    }

    /// `$env{K}`, `$attr{F}` (device first, then the selected parent), `%k`, `$kernel`, `$$`, `%%`.
    private func substitute(_ value: String, chain: [Device], selected: Int, properties: [String: String]) -> String {
        var result = ""
        var rest = Substring(value)
        while let index = rest.firstIndex(where: { $0 == "$" || $0 == "%" }) {
            result += rest[..<index]
            rest = rest[rest.index(after: index)...]
            if rest.first == value[index] {
                result.append(value[index])
                rest = rest.dropFirst()
                continue
            }
            let name = value[index] == "%" ? String(rest.prefix(1)) : String(rest.prefix { $0.isLetter })
            rest = rest.dropFirst(name.count)
            var argument: String?
            if rest.first == "{", let close = rest.firstIndex(of: "}") {
                argument = String(rest[rest.index(after: rest.startIndex)..<close])
                rest = rest[rest.index(after: close)...]
            }
            switch (value[index], name) {
            case ("$", "env"), ("%", "E"): result += properties[argument ?? ""] ?? ""
            case ("$", "attr"), ("%", "s"):
                result += chain[0].attributes[argument ?? ""] ?? chain[selected].attributes[argument ?? ""] ?? ""
            case ("$", "kernel"), ("%", "k"): result += chain[0].sysname
            default: result += "\(value[index])\(name)"
            }
        }
        return result + rest
    }

    /// udev's pattern match: `|` alternatives of fnmatch globs; "" matches only the empty value.
    static func matches(_ pattern: String, _ value: String) -> Bool {
        if pattern.isEmpty { return value.isEmpty }
        return pattern.split(separator: "|").contains { fnmatch(String($0), value, 0) == 0 }
    }
}
