import ArgumentParser
import Discovery

/// The `[discovery]` selection for the client subcommands, as flags: the same matchers and modes as
/// the daemon's config (docs/discovery.md, "Matchers"), so tests can run them through real enumeration.
struct PolicyOptions: ParsableArguments {
    @Option(name: .customLong("generic-bridges"), help: "tagged (default) or probe, as [discovery] generic_bridges.")
    var genericBridges: String = GenericBridgeMode.tagged.rawValue

    @Option(name: .customLong("probe"), help: "A [discovery] probe entry (repeatable).")
    var probe: [String] = []

    @Option(name: .customLong("ignore"), help: "A [discovery] ignore entry (repeatable).")
    var ignore: [String] = []

    func validate() throws {
        _ = try policy()
    }

    /// The standard tables with these settings; entries are located as `--probe` / `--ignore` flags.
    func policy() throws -> CandidatePolicy {
        guard let mode = GenericBridgeMode(rawValue: genericBridges) else {
            throw ValidationError("--generic-bridges \(genericBridges): use tagged or probe")
        }
        do {
            let flag = ConfigLocation(file: "command line", line: nil)
            return .standard(
                selection: PortSelection(
                    genericBridges: mode,
                    genericBridgesLocation: genericBridges == GenericBridgeMode.tagged.rawValue ? nil : flag,
                    probe: try probe.map { text throws(PortMatcherError) in
                        try ConfiguredMatcher(parsing: text, location: flag)
                    },
                    ignore: try ignore.map { text throws(PortMatcherError) in
                        try ConfiguredMatcher(parsing: text, location: flag)
                    }
                )
            )
        } catch {
            throw ValidationError(error.description)
        }
    }
}
