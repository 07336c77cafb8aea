import Foundation

/// A strict reading of the Prometheus text exposition format (version 0.0.4), for checking a
/// whole `/metrics` body: every sample's family has one `# HELP` (non-empty) and one `# TYPE`
/// before its samples, a family's samples are together, no series repeats, names and label names
/// are valid, values are numbers, counters end in `_total`. Then the same text goes through the
/// Python client's parser (``pythonFamilies(_:)``), an implementation of the format that is not ours.
struct PrometheusText {
    struct Sample: Hashable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    var help: [String: String] = [:]
    var types: [String: String] = [:]
    var samples: [Sample] = []
    /// Everything wrong with the text; empty when it passes.
    var problems: [String] = []

    init(_ text: String) {
        var seen = Set<String>()
        var finished = Set<String>()
        var current: String?
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(raw)
            let at = "line \(number + 1)"
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                let parts = line.split(separator: " ", maxSplits: 3).map(String.init)
                guard parts.count >= 3, parts[1] == "HELP" || parts[1] == "TYPE" else { continue }
                let name = parts[2]
                if !Self.validName(name) { problems.append("\(at): invalid metric name \(name)") }
                if parts[1] == "HELP" {
                    if help[name] != nil { problems.append("\(at): second HELP for \(name)") }
                    help[name] = parts.count == 4 ? parts[3] : ""
                } else {
                    if types[name] != nil { problems.append("\(at): second TYPE for \(name)") }
                    let type = parts.count == 4 ? parts[3] : ""
                    if !["counter", "gauge", "histogram", "summary", "untyped"].contains(type) {
                        problems.append("\(at): unknown type \(type) for \(name)")
                    }
                    types[name] = type
                }
                if finished.contains(name) { problems.append("\(at): \(name) has metadata after its samples") }
                continue
            }
            guard let sample = parseSample(line, at: at) else { continue }
            let family = family(of: sample.name)
            if current != family {
                if let current { finished.insert(current) }
                if finished.contains(family) { problems.append("\(at): samples of \(family) are not together") }
                current = family
            }
            if (help[family] ?? "").isEmpty { problems.append("\(at): \(sample.name): no HELP before its sample") }
            if types[family] == nil { problems.append("\(at): \(sample.name): no TYPE before its sample") }
            if types[family] == "counter", !sample.name.hasSuffix("_total") {
                problems.append("\(at): counter \(sample.name) does not end in _total")
            }
            let key = sample.name + sample.labels.sorted { $0.key < $1.key }.description
            if !seen.insert(key).inserted { problems.append("\(at): duplicate series \(key)") }
            samples.append(sample)
        }
    }

    /// The family a sample belongs to (a histogram's `_bucket`, `_sum` and `_count` belong to it).
    func family(of name: String) -> String {
        for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
            let base = String(name.dropLast(suffix.count))
            if types[base] == "histogram" || types[base] == "summary" { return base }
        }
        return name
    }

    static func validName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCIILetter || first == "_" || first == ":" else {
            return false
        }
        return name.unicodeScalars.allSatisfy { $0.isASCIILetter || ("0"..."9").contains($0) || $0 == "_" || $0 == ":" }
    }

    mutating func parseSample(_ line: String, at: String) -> Sample? {
        var rest = Substring(line)
        let name = String(rest.prefix { $0 != "{" && $0 != " " })
        rest = rest.dropFirst(name.count)
        guard Self.validName(name) else {
            problems.append("\(at): invalid sample name in \(line)")
            return nil
        }
        var labels: [String: String] = [:]
        if rest.first == "{" {
            rest = rest.dropFirst()
            while rest.first != "}" {
                let labelName = String(rest.prefix { $0 != "=" })
                rest = rest.dropFirst(labelName.count)
                guard Self.validName(labelName), !labelName.contains(":"), rest.hasPrefix("=\"") else {
                    problems.append("\(at): bad label in \(line)")
                    return nil
                }
                rest = rest.dropFirst(2)
                var value = ""
                var escaped = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if escaped {
                        switch character {
                        case "n": value.append("\n")
                        case "\\", "\"": value.append(character)
                        default:
                            problems.append("\(at): bad escape \\\(character) in \(line)")
                            return nil
                        }
                        escaped = false
                    } else if character == "\\" {
                        escaped = true
                    } else if character == "\"" {
                        break
                    } else {
                        value.append(character)
                    }
                }
                if labels.updateValue(value, forKey: labelName) != nil {
                    problems.append("\(at): label \(labelName) twice in \(line)")
                }
                if rest.first == "," { rest = rest.dropFirst() }
                guard !rest.isEmpty else {
                    problems.append("\(at): unterminated labels in \(line)")
                    return nil
                }
            }
            rest = rest.dropFirst()
        }
        guard rest.first == " " else {
            problems.append("\(at): no value in \(line)")
            return nil
        }
        let fields = rest.dropFirst().split(separator: " ")
        guard fields.count == 1 || fields.count == 2, let value = Self.number(String(fields[0])) else {
            problems.append("\(at): bad value in \(line)")
            return nil
        }
        return Sample(name: name, labels: labels, value: value)
    }

    static func number(_ text: String) -> Double? {
        switch text {
        case "+Inf": .infinity
        case "-Inf": -.infinity
        case "NaN": .nan
        default: Double(text)
        }
    }

    /// The value of the series `name` with exactly `labels`, if present.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    /// Every sample of `name`.
    func series(_ name: String) -> [Sample] {
        samples.filter { $0.name == name }
    }

    /// The families as the Python client's parser (prometheus_client.parser, Debian's
    /// python3-prometheus-client, installed by tools/setup.sh) reads them: name, type, help and
    /// sample count. It raises on any line it cannot parse, which fails the call.
    static func pythonFamilies(_ text: String) throws -> [[String: Any]] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            "-c",
            """
            import json, sys
            from prometheus_client.parser import text_string_to_metric_families
            families = [{"name": f.name, "type": f.type, "help": f.documentation, "samples": len(f.samples)}
                        for f in text_string_to_metric_families(sys.stdin.read())]
            print(json.dumps(families))
            """,
        ]
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw DaemonProcess.Failure(
                description: "python3's prometheus_client could not parse /metrics (run tools/setup.sh, which "
                    + "installs python3-prometheus-client): \(message)"
            )
        }
        return try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
