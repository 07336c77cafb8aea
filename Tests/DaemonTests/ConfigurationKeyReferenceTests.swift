import Daemon
import Foundation
import Testing

/// Every configuration key that a document, the shipped config files, the nbgwd.toml(5) page or a
/// message in the code names is a key the config reader accepts: a reader who copies one never
/// gets "unknown key".
@Suite("config keys named in docs and messages")
struct ConfigurationKeyReferenceTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The top-level tables of the daemon's file.
    static let sections = [
        "store", "cloud", "modem", "discovery", "ports", "metrics", "ingest", "shutdown", "log", "control", "sim",
        "hooks", "console",
    ]

    /// The patterns, compiled once. Why: the test scans every string literal of Sources/, and
    /// compiling a Regex per literal kept one of the two cooperative threads busy for seconds,
    /// which starved the timing-bound daemon tests running beside it in the same process.
    nonisolated(unsafe) static let bracketed = try! Regex(
        "\\[\\[?((?:\(sections.joined(separator: "|")))(?:\\.[a-z_-]+)?)\\]\\]? `?([a-z][a-z_-]*)"
    )
    nonisolated(unsafe) static let dotted = try! Regex(
        "`((?:\(sections.joined(separator: "|")))(?:\\.[a-z_<>-]+)+)[` =]"
    )
    nonisolated(unsafe) static let configKey = try! Regex("config(?:uration)? (?:key )?`([a-z_]+)`")
    nonisolated(unsafe) static let backticked = try! Regex("`([^`]+)`")
    nonisolated(unsafe) static let tomlHeader = try! Regex("^\\[\\[?([a-z.]+)\\]\\]?")
    nonisolated(unsafe) static let tomlAssignment = try! Regex("^([a-z][a-z_-]*) *=")
    nonisolated(unsafe) static let manualHeading = try! Regex("^\\.SS \"?\\[\\[?([a-z.]+)\\]\\]?")
    nonisolated(unsafe) static let manualEntry = try! Regex("^\\.B ([a-z][a-z_-]*)")

    /// A named key and where it was named.
    struct Reference: Hashable, CustomStringConvertible {
        var key: String
        var place: String
        var description: String { "\(key) (\(place))" }
    }

    @Test("every key the docs, config files, man page and messages name is accepted by the reader")
    func everyNamedKeyExists() throws {
        let references = try Self.allReferences()
        // The extraction must see the keys it is there for, or the test proves nothing.
        let keys = Set(references.map(\.key))
        for expected in ["store.path", "cloud.max_attempts", "modem.psm.enabled", "ports.baud", "ingest.tls_key"] {
            #expect(keys.contains(expected), "\(expected) was not found in the docs: the extraction is broken")
        }
        var unknown: [String] = []
        for reference in references.sorted(by: { $0.description < $1.description }) {
            if let problem = Self.unknownKeyProblem(reference.key) { unknown.append("\(reference): \(problem)") }
        }
        #expect(unknown == [], "keys named but not read:\n\(unknown.joined(separator: "\n"))")
    }

    @Test("the checker itself rejects a key the reader does not know")
    func checkerRejectsUnknownKeys() {
        #expect(Self.unknownKeyProblem("modem.baud_rates") != nil)
        #expect(Self.unknownKeyProblem("cloud.max_retries") != nil)
        #expect(Self.unknownKeyProblem("metrics.port") != nil)
        #expect(Self.unknownKeyProblem("modem.backoff.initial") == nil)
    }

    @Test("the extraction finds keys in each form the docs and messages use")
    func extractionForms() {
        let text = """
            set `[discovery] udev = false`, the line speed (config `baud_rates`), \
            `cloud.connect_timeout`, `request_timeout` and `[[ports]] path`; not `cloud.md` nor `discovery.events()`
            """
        let found = Set(Self.references(inProse: text, place: "t").map(\.key))
        #expect(found == ["discovery.udev", "baud_rates", "cloud.connect_timeout", "ports.path"])
        let table = "| `cloud.connect_timeout`, `request_timeout`, `max_attempts`, `cloud.secret` | 5, 15, 5 | x |"
        #expect(
            Set(Self.references(inTableRow: table, place: "t").map(\.key))
                == ["cloud.connect_timeout", "cloud.request_timeout", "cloud.max_attempts", "cloud.secret"]
        )
        let toml = "[cloud]\n# max_attempts = 5\n# [modem.psm]\n# enabled = true\n[[ports]]\n# baud = 9600\n"
        #expect(
            Set(Self.references(inTOML: toml, place: "t").map(\.key))
                == ["cloud.max_attempts", "modem.psm.enabled", "ports.baud"]
        )
    }

    // MARK: - Checking one key

    /// nil when the reader accepts `key` (whatever it says about the value), else its complaint.
    static func unknownKeyProblem(_ key: String) -> String? {
        var parts = key.split(separator: ".").map(String.init)
        guard parts.count >= 2 else { return "not SECTION.KEY: name the table it belongs in" }
        let name = parts.removeLast()
        let table = parts.joined(separator: ".")
        let header = table == "ports" ? "[[ports]]" : "[\(table)]"
        // A value of the wrong type for most keys: the reader then complains about the value, never
        // about the name, unless it does not know the name.
        let text = "\(header)\n\"\(name)\" = \"?\"\n"
        do {
            _ = try DaemonConfiguration.parse(toml: text, file: "check.toml")
            return nil
        } catch {
            let unknown = error.problems.filter { $0.message.contains("unknown key") }
            return unknown.isEmpty ? nil : unknown.map(\.description).joined(separator: "; ")
        }
    }

    // MARK: - Finding the keys

    static func allReferences() throws -> Set<Reference> {
        var all: Set<Reference> = []
        let fileManager = FileManager.default
        var prose = ["README.md", "udev-rules/README.md", "packaging/systemd/nbgwd.service"]
        for name in try fileManager.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path).sorted()
        where name.hasSuffix(".md") || name.hasSuffix(".yaml") {
            prose.append("docs/" + name)
        }
        for file in prose {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            all.formUnion(Self.references(inProse: text, place: file))
            for line in text.split(separator: "\n") where line.hasPrefix("| `") {
                all.formUnion(Self.references(inTableRow: String(line), place: file))
            }
        }
        for file in ["examples/nbgwd.toml", "packaging/nbgwd.toml"] {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            all.formUnion(Self.references(inTOML: text, place: file))
        }
        let manual = try String(contentsOf: root.appendingPathComponent("packaging/man/nbgwd.toml.5"), encoding: .utf8)
        all.formUnion(Self.references(inManual: manual, place: "packaging/man/nbgwd.toml.5"))
        // Messages: the string literals of the code.
        let sources = root.appendingPathComponent("Sources")
        let enumerator = fileManager.enumerator(atPath: sources.path)
        while let path = enumerator?.nextObject() as? String {
            guard path.hasSuffix(".swift") else { continue }
            let text = try String(contentsOf: sources.appendingPathComponent(path), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                // Only literals that can hold one of the three forms are matched.
                guard line.contains("[") || line.contains("`") else { continue }
                for literal in stringLiterals(String(line)) where literal.contains("[") || literal.contains("`") {
                    all.formUnion(Self.references(inProse: literal, place: "Sources/\(path):\(number + 1)"))
                }
            }
        }
        return all
    }

    /// `[section] key`, `[[ports]] key`, `` `section.key` `` and `` config `key` `` in running text.
    static func references(inProse text: String, place: String) -> [Reference] {
        var found: [Reference] = []
        for match in text.matches(of: bracketed) {
            let table = String(match.output[1].substring ?? "")
            let key = String(match.output[2].substring ?? "")
            // "a [[ports]] entry", "the [ingest] table": the table itself, not one of its keys.
            let words = [
                "entry", "entries", "table", "tables", "section", "and", "or", "with", "in", "is", "are", "has",
            ]
            if words.contains(key) {
                continue
            }
            found.append(Reference(key: "\(table).\(key)", place: place))
        }
        for match in text.matches(of: dotted) {
            let key = String(match.output[1].substring ?? "")
            if [".md", ".yaml", ".toml", ".crt", ".key", ".sh"].contains(where: { key.hasSuffix($0) }) { continue }
            found.append(Reference(key: key.replacingOccurrences(of: "<rat>", with: "nb-iot"), place: place))
        }
        // "config `name`": a key named without its table, which no reader can find.
        for match in text.matches(of: configKey) {
            found.append(Reference(key: String(match.output[1].substring ?? ""), place: place))
        }
        return found
    }

    /// The first cell of a config table row: `` `section.key`, `other`, `third` ``, the bare names in
    /// the table of the first.
    static func references(inTableRow row: String, place: String) -> [Reference] {
        let cells = row.split(separator: "|", omittingEmptySubsequences: true)
        guard let first = cells.first else { return [] }
        let names = first.matches(of: backticked).compactMap { $0.output[1].substring.map(String.init) }
        guard let lead = names.first, let dot = lead.lastIndex(of: "."),
            sections.contains(String(lead.split(separator: ".")[0]).trimmingCharacters(in: ["[", "]"]))
        else { return [] }
        let table = String(lead[..<dot])
        return names.enumerated().compactMap { index, name in
            let bare = name.split(separator: " ").last.map(String.init) ?? name
            let qualified = bare.contains(".") && sections.contains(String(bare.split(separator: ".")[0]))
            let key = index == 0 || qualified ? bare : "\(table).\(bare)"
            guard key.allSatisfy({ $0.isLetter || $0 == "_" || $0 == "." || $0 == "-" || $0 == "<" || $0 == ">" })
            else { return nil }
            return Reference(key: key.replacingOccurrences(of: "<rat>", with: "nb-iot"), place: place)
        }
    }

    /// Every `key =` line of a TOML file, commented out or not, in the table of the header above it.
    static func references(inTOML text: String, place: String) -> [Reference] {
        var table = ""
        var found: [Reference] = []
        for raw in text.split(separator: "\n") {
            var line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#") { line = line.dropFirst().trimmingCharacters(in: .whitespaces) }
            if let header = line.firstMatch(of: tomlHeader) {
                table = String(header.output[1].substring ?? "")
                continue
            }
            if let assignment = line.firstMatch(of: tomlAssignment), !table.isEmpty {
                found.append(Reference(key: "\(table).\(assignment.output[1].substring ?? "")", place: place))
            }
        }
        return found
    }

    /// nbgwd.toml(5): `.SS [table]` headings, then one `.TP` / `.B key` entry per key.
    static func references(inManual text: String, place: String) -> [Reference] {
        var table = ""
        var found: [Reference] = []
        var afterTP = false
        for line in text.split(separator: "\n") {
            if let heading = line.firstMatch(of: manualHeading) {
                table = String(heading.output[1].substring ?? "")
            } else if line.hasPrefix(".SH") {
                table = ""
            } else if afterTP, !table.isEmpty, let entry = line.firstMatch(of: manualEntry) {
                found.append(Reference(key: "\(table).\(entry.output[1].substring ?? "")", place: place))
            }
            afterTP = line.hasPrefix(".TP")
        }
        return found
    }

    /// The contents of the double-quoted string literals on one line of Swift.
    static func stringLiterals(_ line: String) -> [String] {
        var literals: [String] = []
        var current = ""
        var inside = false
        var escaped = false
        for character in line {
            if inside {
                if escaped {
                    escaped = false
                    current.append(character)
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    literals.append(current)
                    current = ""
                    inside = false
                } else {
                    current.append(character)
                }
            } else if character == "\"" {
                inside = true
            }
        }
        return literals
    }
}
