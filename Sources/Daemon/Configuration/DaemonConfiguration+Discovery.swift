import Discovery
import Foundation
import NBGWCore
import TOMLKit

extension DaemonConfiguration.Discovery {
    /// Where the `[discovery]` settings were written: the file and the line of each, for the reasons
    /// discovery gives (`[discovery] probe entry "10c4:ea60" (/etc/nbgw/nbgwd.toml line 31)`).
    public struct Locations: Sendable, Hashable {
        /// The config file; nil for the built-in defaults.
        public var file: String?
        /// The line of `generic_bridges`; nil when the file does not set it.
        public var genericBridges: Int?
        /// The line of each `probe` entry, in order.
        public var probe: [Int?]
        /// The line of each `ignore` entry, in order.
        public var ignore: [Int?]

        public init(file: String? = nil, genericBridges: Int? = nil, probe: [Int?] = [], ignore: [Int?] = []) {
            self.file = file
            self.genericBridges = genericBridges
            self.probe = probe
            self.ignore = ignore
        }
    }

    /// The operator's selection for the candidate policy: the settings with where each was written.
    /// The entries were checked when the file was read (``DaemonConfiguration/parse(toml:file:)``); one
    /// that no longer reads as a matcher (a value built in code) is left out.
    public var portSelection: PortSelection {
        func entries(_ texts: [String], _ lines: [Int?]) -> [ConfiguredMatcher] {
            texts.enumerated().compactMap { index, text in
                let location = ConfigLocation(file: locations.file, line: index < lines.count ? lines[index] : nil)
                return try? ConfiguredMatcher(parsing: text, location: location)
            }
        }
        let setInFile = locations.genericBridges != nil || genericBridges != .tagged
        return PortSelection(
            genericBridges: genericBridges,
            genericBridgesLocation: setInFile
                ? ConfigLocation(file: locations.file, line: locations.genericBridges) : nil,
            probe: entries(probe, locations.probe),
            ignore: entries(ignore, locations.ignore)
        )
    }

    /// The daemon's candidate policy: the standard tables with this section's selection.
    public var candidatePolicy: CandidatePolicy {
        .standard(selection: portSelection)
    }

    /// The `[discovery]` table as `--check-config` prints it.
    func renderedTOML(quoted: (String) -> String) -> [String] {
        [
            "[discovery]",
            "udev = \(udev)",
            "generic_bridges = \(quoted(genericBridges.rawValue))",
            "probe = [\(probe.map(quoted).joined(separator: ", "))]",
            "ignore = [\(ignore.map(quoted).joined(separator: ", "))]",
        ]
    }

    /// `ignore` entries that name a `[[ports]]` path (or `--port`), as far as the path tells: the
    /// port would be listed and never opened, so the configuration contradicts itself. Each with
    /// the key of the ignore entry.
    func conflicts(withStaticPorts ports: [DaemonConfiguration.StaticPort]) -> [(key: String, message: String)] {
        var found: [(key: String, message: String)] = []
        for (index, text) in ignore.enumerated() {
            guard let matcher = try? PortMatcher(parsing: text) else { continue }
            for port in ports where matcher.matches(UdevPort(devnode: port.path, syspath: "", links: [port.path])) {
                found.append(
                    (
                        "discovery.ignore[\(index)]",
                        "\(text.escapedForDisplay()) names the [[ports]] entry \(port.path.escapedForDisplay()): an "
                            + "ignored port is never opened, not even a static one; remove the [[ports]] entry (or "
                            + "--port) or this ignore entry"
                    )
                )
            }
        }
        return found
    }
}

extension DaemonConfiguration {
    /// Reads `[discovery]`: `udev`, `generic_bridges`, `probe`, `ignore`, each mistake reported with
    /// its line (an entry of `probe` or `ignore` with the line of that entry).
    static func readDiscovery(_ table: TOMLTable, file: String?, _ reader: inout ConfigurationReader) -> Discovery {
        reader.checkKeys(table, at: "discovery", allowed: ["udev", "generic_bridges", "probe", "ignore"])
        var discovery = Discovery()
        discovery.locations.file = file
        discovery.udev = reader.bool(table, "udev", at: "discovery") ?? true
        if let text = reader.string(table, "generic_bridges", at: "discovery", example: "\"tagged\"") {
            if let mode = GenericBridgeMode(rawValue: text) {
                discovery.genericBridges = mode
                discovery.locations.genericBridges = reader.locator.line(of: "discovery.generic_bridges")
            } else {
                reader.report(
                    "discovery.generic_bridges",
                    "unknown mode \(text.escapedForDisplay()): use \"tagged\" (probe a USB-UART bridge only when a udev "
                        + "rule tags it ID_NBGW_PROBE=1 or [discovery] probe lists it) or \"probe\" (probe every bridge)"
                )
            }
        }
        for key in ["probe", "ignore"] {
            let example = key == "probe" ? "[\"10c4:ea60\", \"by-id:usb-Silicon_Labs_CP2102_*\"]" : "[\"by-id:…\"]"
            guard let texts = reader.strings(table, key, at: "discovery", example: example) else { continue }
            var kept: [String] = []
            var lines: [Int?] = []
            for (index, text) in texts.enumerated() {
                let entryKey = "discovery.\(key)[\(index)]"
                do {
                    _ = try PortMatcher(parsing: text)
                    kept.append(text)
                    lines.append(reader.locator.line(of: entryKey))
                } catch {
                    reader.report(entryKey, "\(error.description) (docs/discovery.md, \"Matchers\")")
                }
            }
            if key == "probe" {
                discovery.probe = kept
                discovery.locations.probe = lines
            } else {
                discovery.ignore = kept
                discovery.locations.ignore = lines
            }
        }
        let ignored = discovery.ignore.map { try? PortMatcher(parsing: $0) }
        for (index, text) in discovery.probe.enumerated() {
            guard let matcher = try? PortMatcher(parsing: text), let other = ignored.firstIndex(of: matcher) else {
                continue
            }
            let where_ = discovery.locations.ignore[other].map { " (line \($0))" } ?? ""
            reader.report(
                "discovery.probe[\(index)]",
                "\(text.escapedForDisplay()) is also an ignore entry\(where_): ignore wins, so this probe entry has no "
                    + "effect; remove one of them"
            )
        }
        return discovery
    }
}

extension DaemonConfiguration {
    /// The environment variable that names the daemon's config file for the CLI (`nbgw discovery list`).
    public static let configEnvironmentKey = "NBGW_CONFIG"

    /// Reads the daemon's config file the way the CLI finds it: `explicitPath` (`--config`), else
    /// `$NBGW_CONFIG`, else `defaultPath` when it exists, else the built-in defaults (file nil).
    /// The file is parsed and its values checked (``parse(toml:file:)``), without the merged checks
    /// that need the daemon's own files (TLS keys, cloud credentials), which an operator may not read.
    ///
    /// - Throws: ``DaemonConfigurationError`` naming the file: missing (when named), unreadable (with the
    ///   group to join), not UTF-8, or invalid (each key and its line).
    public static func readForInspection(
        explicitPath: String?,
        environment: [String: String],
        defaultPath: String = DaemonConfiguration.defaultPath
    ) throws(DaemonConfigurationError) -> (configuration: DaemonConfiguration, file: String?) {
        let named = explicitPath ?? environment[configEnvironmentKey].flatMap { $0.isEmpty ? nil : $0 }
        let path: String
        if let named {
            path = named
        } else if FileManager.default.fileExists(atPath: defaultPath) {
            path = defaultPath
        } else {
            return (DaemonConfiguration(), nil)
        }
        guard FileManager.default.fileExists(atPath: path) else {
            let how = explicitPath != nil ? "--config" : "$\(configEnvironmentKey)"
            throw DaemonConfigurationError(
                file: path,
                key: nil,
                "the file does not exist (named by \(how)): name the daemon's config file, or leave \(how) out to use "
                    + "\(defaultPath) when present, else the built-in defaults"
            )
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DaemonConfigurationError(
                file: path,
                key: nil,
                "cannot read the file: it is root:nbgw 0640 when installed as documented, so join the group nbgw "
                    + "(usermod -aG nbgw $USER, then log in again) or run as root"
            )
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw DaemonConfigurationError(file: path, key: nil, "the file is not UTF-8 text: save it as UTF-8")
        }
        return (try parse(toml: text, file: path), path)
    }
}
