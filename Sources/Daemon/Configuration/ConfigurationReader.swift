import NBGWCore
import TOMLKit

/// Reads typed values out of a parsed TOML document, collecting every problem (unknown key, wrong
/// type, value out of range) with its key and line instead of stopping at the first.
struct ConfigurationReader {
    let locator: TOMLKeyLocator
    private(set) var problems: [DaemonConfigurationError.Problem] = []

    init(locator: TOMLKeyLocator) {
        self.locator = locator
    }

    /// `parent.key`, or `key` at the top level.
    static func path(_ parent: String, _ key: String) -> String {
        parent.isEmpty ? key : "\(parent).\(key)"
    }

    /// Records a problem with `key` (its line looked up in the file).
    mutating func report(_ key: String?, _ message: String) {
        problems.append(.init(key: key, line: key.flatMap(locator.line(of:)), message: message))
    }

    /// Reports every key of `table` not in `allowed` (a misspelt key would otherwise be ignored
    /// silently and its default used).
    mutating func checkKeys(_ table: TOMLTable, at path: String, allowed: [String]) {
        for key in table.keys.sorted() where !allowed.contains(key) {
            let section = path.isEmpty ? "at the top level" : "in [\(path)]"
            report(
                Self.path(path, key),
                "unknown key \(key.escapedForDisplay()) \(section); known keys: \(allowed.joined(separator: ", ")) "
                    + "(check the spelling, or remove it)"
            )
        }
    }

    /// A sub-table, or nil when absent or not a table (reported).
    mutating func table(_ parent: TOMLTable, _ key: String, at path: String) -> TOMLTable? {
        guard let value = parent[key] else { return nil }
        guard let table = value.table else {
            report(
                Self.path(path, key),
                "expected a table ([\(Self.path(path, key))]), found \(describe(value, of: key))"
            )
            return nil
        }
        return table
    }

    /// An array of tables (`[[key]]`), or nil when absent or of another type (reported).
    mutating func tables(_ parent: TOMLTable, _ key: String, at path: String) -> [TOMLTable]? {
        guard let value = parent[key] else { return nil }
        guard let array = value.array else {
            report(
                Self.path(path, key),
                "expected an array of tables ([[\(key)]] entries), found \(describe(value, of: key))"
            )
            return nil
        }
        var tables: [TOMLTable] = []
        for (index, element) in array.enumerated() {
            guard let table = element.table else {
                report("\(Self.path(path, key))[\(index)]", "expected a table, found \(describe(element, of: key))")
                continue
            }
            tables.append(table)
        }
        return tables
    }

    mutating func string(_ table: TOMLTable, _ key: String, at path: String, example: String) -> String? {
        guard let value = table[key] else { return nil }
        guard let text = value.string else {
            report(
                Self.path(path, key),
                "expected a string, found \(describe(value, of: key)); write \(key) = "
                    + Self.example(example, for: key)
            )
            return nil
        }
        return text
    }

    mutating func bool(_ table: TOMLTable, _ key: String, at path: String) -> Bool? {
        guard let value = table[key] else { return nil }
        guard let flag = value.bool else {
            report(
                Self.path(path, key),
                "expected true or false, found \(describe(value, of: key)); write \(key) = true"
            )
            return nil
        }
        return flag
    }

    mutating func integer(
        _ table: TOMLTable,
        _ key: String,
        at path: String,
        in range: ClosedRange<Int>,
        unit: String = ""
    ) -> Int? {
        guard let value = table[key] else { return nil }
        let suffix = unit.isEmpty ? "" : " \(unit)"
        guard let number = value.int else {
            report(
                Self.path(path, key),
                "expected a whole number\(suffix) from \(range.lowerBound) to \(range.upperBound), found "
                    + describe(value, of: key)
            )
            return nil
        }
        guard range.contains(number) else {
            report(
                Self.path(path, key),
                "\(Self.isSecret(key) ? "the value" : String(number)) is out of range: use a whole number\(suffix) "
                    + "from \(range.lowerBound) to \(range.upperBound)"
            )
            return nil
        }
        return number
    }

    /// A number (integer or decimal) within `range`; `example` goes into the message of a wrong type.
    mutating func number(
        _ table: TOMLTable,
        _ key: String,
        at path: String,
        in range: ClosedRange<Double>,
        unit: String,
        example: String
    ) -> Double? {
        guard let value = table[key] else { return nil }
        guard let number = value.double ?? value.int.map(Double.init) else {
            report(
                Self.path(path, key),
                "expected a number of \(unit) from \(range.lowerBound.formatted) to \(range.upperBound.formatted), "
                    + "found \(describe(value, of: key)); write \(key) = \(Self.example(example, for: key))"
            )
            return nil
        }
        guard range.contains(number), number.isFinite else {
            report(
                Self.path(path, key),
                "\(Self.isSecret(key) ? "the value" : number.formatted) is out of range: use a number of \(unit) from "
                    + "\(range.lowerBound.formatted) to \(range.upperBound.formatted)"
            )
            return nil
        }
        return number
    }

    /// A duration written as a number of seconds.
    mutating func seconds(
        _ table: TOMLTable,
        _ key: String,
        at path: String,
        in range: ClosedRange<Double>,
        example: String
    ) -> Duration? {
        number(table, key, at: path, in: range, unit: "seconds", example: example).map {
            .milliseconds(Int64(($0 * 1000).rounded()))
        }
    }

    mutating func strings(_ table: TOMLTable, _ key: String, at path: String, example: String) -> [String]? {
        guard let value = table[key] else { return nil }
        guard let array = value.array else {
            report(
                Self.path(path, key),
                "expected an array of strings, found \(describe(value, of: key)); write \(key) = "
                    + Self.example(example, for: key)
            )
            return nil
        }
        var strings: [String] = []
        for (index, element) in array.enumerated() {
            guard let text = element.string else {
                report(
                    "\(Self.path(path, key))[\(index)]",
                    "expected a string, found \(describe(element, of: key)); write \(key) = "
                        + Self.example(example, for: key)
                )
                return nil
            }
            strings.append(text)
        }
        return strings
    }

    mutating func integers(
        _ table: TOMLTable,
        _ key: String,
        at path: String,
        in range: ClosedRange<Int>,
        example: String
    ) -> [Int]? {
        guard let value = table[key] else { return nil }
        guard let array = value.array else {
            report(
                Self.path(path, key),
                "expected an array of whole numbers, found \(describe(value, of: key)); write \(key) = "
                    + Self.example(example, for: key)
            )
            return nil
        }
        var numbers: [Int] = []
        for (index, element) in array.enumerated() {
            guard let number = element.int, range.contains(number) else {
                report(
                    "\(Self.path(path, key))[\(index)]",
                    "expected a whole number from \(range.lowerBound) to \(range.upperBound), found "
                        + "\(describe(element, of: key)); write \(key) = \(Self.example(example, for: key))"
                )
                return nil
            }
            numbers.append(number)
        }
        return numbers
    }

    /// Words of key names that hold secrets (`pin`, `secret`, `owner_token`, …): a key whose name
    /// has one of them among its `_`-separated words, or ends in `app_key` or `api_key`, never has
    /// its value echoed (``describe(_:of:)``). Words, not substrings: `sim_pins` and `tls_key` are
    /// paths, whose examples a message should keep.
    static let secretWords: Set<String> = ["pin", "puk", "secret", "password", "passphrase", "token", "psk"]

    /// True for a key (`sim[0].pin`, `cloud.owner_token`, or the bare name) whose value is a secret.
    static func isSecret(_ key: String) -> Bool {
        let name = (key.split(separator: ".").last.map(String.init) ?? key).lowercased()
        if name.hasSuffix("app_key") || name.hasSuffix("api_key") { return true }
        return name.split(whereSeparator: { $0 == "_" || $0 == "-" }).contains { secretWords.contains(String($0)) }
    }

    /// How a message shows what to write for `key`: `example`, or `"…"` for a secret key (an
    /// example PIN would read as the file's own).
    static func example(_ example: String, for key: String) -> String {
        isSecret(key) ? "\"…\"" : example
    }

    /// "a string (\"5m\")", "an integer (3)", "a table" …; the type alone for a secret key's
    /// value (security review F9: `pin = 1234` was echoed to the terminal and the journal).
    func describe(_ value: any TOMLValueConvertible, of key: String) -> String {
        if Self.isSecret(key) {
            switch value.type {
            case .string: return "a string"
            case .int: return "an integer"
            case .double: return "a number"
            case .bool: return "a boolean"
            default: break
            }
        }
        return switch value.type {
        case .string: "a string (\(value.string?.escapedForDisplay() ?? ""))"
        case .int: "an integer (\(value.int.map(String.init) ?? ""))"
        case .double: "a number (\(value.double.map { $0.formatted } ?? ""))"
        case .bool: "a boolean (\(value.bool.map(String.init) ?? ""))"
        case .array: "an array"
        case .table: "a table"
        case .date, .time, .dateTime: "a \(value.type)"
        }
    }
}

extension Double {
    /// 10 → "10", 0.5 → "0.5".
    var formatted: String {
        self == rounded() && abs(self) < 1e15 ? String(Int64(self)) : String(self)
    }
}
