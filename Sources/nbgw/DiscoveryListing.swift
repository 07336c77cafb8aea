import Daemon
import Discovery

/// What `nbgw discovery list` shows: every tty with the decision about it, and where the decisions
/// come from. Built from `[DiscoveryEntry]` whatever computed them (this command from the config and
/// udev, or a running daemon's ledger), so the rendering never depends on the source.
struct DiscoveryListing: Encodable {
    /// A `[discovery] probe` or `ignore` entry that matches no port now (a typo, or unplugged).
    struct Unmatched: Encodable {
        /// `probe` or `ignore`.
        var list: String
        var entry: String
        var file: String?
        var line: Int?
    }

    /// `config`: computed by this command from the daemon's config file and udev now; `daemon`: the
    /// running daemon's own record.
    var computedFrom: String
    /// The config file read; absent: the built-in defaults.
    var config: String?
    /// Why udev's ports are not listed (`[discovery] udev = false`, udev unusable here); absent when they are.
    var udevNote: String?
    var entries: [DiscoveryEntry]
    /// ttys left out (virtual consoles and on-board UARTs that are skipped), unless `--all`.
    var hidden: Int
    var unmatched: [Unmatched]

    /// The decisions the daemon would take with `configuration` (read from `file`) on `udevPorts`
    /// (or, when enumeration failed, with the reason), as `nbgwd` computes them (``PortEventMapper``).
    /// With `all` false, skipped ttys without a USB parent are counted in ``hidden`` instead.
    static func computed(
        configuration: DaemonConfiguration,
        file: String?,
        udevPorts: Result<[UdevPort], any Error>,
        all: Bool
    ) -> DiscoveryListing {
        let mapper = PortEventMapper(
            policy: configuration.discovery.candidatePolicy,
            staticPorts: configuration.ports.map(\.path)
        )
        var note: String?
        var ports: [UdevPort] = []
        if !configuration.discovery.udev {
            note = "[discovery] udev = false: nbgwd sees only the [[ports]] entries"
        } else {
            switch udevPorts {
            case .success(let found): ports = found
            case .failure(let error): note = "udev is unusable here (\(error)): only the [[ports]] entries are listed"
            }
        }
        let every = mapper.entries(udevPorts: ports, udev: configuration.discovery.udev)
        let shown = all ? every : every.filter(isShownByDefault)
        let selection = configuration.discovery.portSelection
        let unmatched = selection.unmatched(by: ports).map { list, entry in
            Unmatched(list: list, entry: entry.text, file: entry.location.file, line: entry.location.line)
        }
        return DiscoveryListing(
            computedFrom: "config",
            config: file,
            udevNote: note,
            entries: shown,
            hidden: every.count - shown.count,
            unmatched: unmatched
        )
    }

    /// Whether a tty is listed without `--all`: a USB one, or any whose decision is not a plain skip
    /// (virtual consoles and on-board UARTs the daemon leaves alone are only counted).
    static func isShownByDefault(_ entry: DiscoveryEntry) -> Bool {
        entry.isUSB || entry.decision != .skip
    }

    /// A running daemon's own record (its ``DiscoveryLedger/entries()``, e.g. over the control
    /// socket), shown the same way: with `all` false, skipped ttys without a USB parent are counted
    /// in ``hidden``. Unmatched config entries are not known from the entries alone: none listed.
    static func fromDaemon(entries: [DiscoveryEntry], all: Bool) -> DiscoveryListing {
        let shown = all ? entries : entries.filter(isShownByDefault)
        return DiscoveryListing(
            computedFrom: "daemon",
            config: nil,
            udevNote: nil,
            entries: shown,
            hidden: entries.count - shown.count,
            unmatched: []
        )
    }

    /// The text form: where the decisions come from, the table, then what was left out and the
    /// config entries that match nothing.
    var lines: [String] {
        var lines: [String] = []
        switch computedFrom {
        case "daemon":
            lines.append("Decisions of the running nbgwd.")
        default:
            lines.append(
                "Computed from \(config ?? "the built-in defaults (no config file)") and udev now, not asked of a "
                    + "running nbgwd."
            )
        }
        if let udevNote { lines.append(udevNote) }
        lines.append("")
        if entries.isEmpty {
            lines.append(hidden > 0 ? "no USB serial ports" : "no ttys")
        } else {
            lines += DiscoveryEntry.table(entries)
        }
        if hidden > 0 {
            lines.append("")
            lines.append(
                "\(hidden) more tty\(hidden == 1 ? "" : "s") without a USB parent (virtual consoles, on-board UARTs) "
                    + "skipped: --all shows them"
            )
        }
        if !unmatched.isEmpty {
            lines.append("")
            lines.append("Config entries that match no port now:")
            for entry in unmatched {
                let location = ConfigLocation(file: entry.file, line: entry.line)
                lines.append("  [discovery] \(entry.list) entry \"\(entry.entry)\" (\(location))")
            }
        }
        return lines
    }
}
