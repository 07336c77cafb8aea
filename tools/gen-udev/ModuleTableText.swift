import Discovery

/// The module table of `docs/discovery.md` ("Module table: each model's interface map") and the
/// catalogue's notes on its rows, generated from the module catalogue.
enum ModuleTableText {
    static func render(_ modules: [KnownModule]) -> String {
        let highest = modules.flatMap { Set($0.interfaces.keys).union($0.interfaceNotes.keys) }.max() ?? 0
        let columns = Array(0...highest)
        var lines = [
            "| Module | VID:PID | " + columns.map { "if " + InterfaceNumber.hex($0) }.joined(separator: " | ")
                + " | Hint |",
            "|---|---|" + String(repeating: "---|", count: columns.count) + "---|",
        ]
        for module in modules {
            let ids = module.productIDs.map { "`\(module.vendorID):\($0)`" }.joined(separator: ", ")
            let cells = columns.map { cell(module, interface: $0) }
            let hint = module.dialectHint.map { "`\($0)`" } ?? "—"
            lines.append("| \(module.name) | \(ids) | " + cells.joined(separator: " | ") + " | \(hint) |")
        }
        let noted = modules.filter { $0.note != nil }
        if !noted.isEmpty {
            lines += ["", "The catalogue's notes on its rows:", ""]
            lines += noted.map { module in
                let note = module.note ?? ""
                return "- **\(module.name)**: \(note)" + (note.hasSuffix(".") ? "" : ".")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A tty's role (with the row's note on it), `(note)` for an interface without a tty, the role of
    /// every unlisted tty when the row has one, else empty.
    static func cell(_ module: KnownModule, interface number: Int) -> String {
        let note = module.interfaceNotes[number]
        if let role = module.interfaces[number] {
            return role.tableLabel + (note.map { " (\($0))" } ?? "")
        }
        if let note { return "(\(note))" }
        return module.otherInterfaces?.tableLabel ?? ""
    }
}
