import Discovery

/// A catalogue row the generator will not turn into rules: what is wrong, in which row, and what to write.
///
/// Why the generator checks at all: every field lands in a udev rules file, where a newline in a name
/// starts a new rule and a quote in a hint ends a value early, and in a Markdown table, where `|` starts
/// a new cell. udev would log the damage and go on; the check stops it before the file is written.
struct CatalogueProblem: Error, CustomStringConvertible {
    var row: Int
    var name: String
    var problem: String

    var description: String {
        "Sources/Discovery/KnownModule+Catalogue.swift: KnownModule.catalogue[\(row)] (\"\(name)\"): \(problem)"
    }

    /// Every problem of `modules`, in row order; empty when the generator can use them.
    static func all(in modules: [KnownModule]) -> [CatalogueProblem] {
        var problems: [CatalogueProblem] = []
        var rowOfID: [String: Int] = [:]
        for (row, module) in modules.enumerated() {
            func report(_ problem: String) {
                problems.append(CatalogueProblem(row: row, name: module.name, problem: problem))
            }
            if !isPrintable(module.name) || module.name.isEmpty || module.name.contains("|") {
                report("the name must be one non-empty line without \"|\"")
            }
            if !isHex4(module.vendorID) {
                report("vendor ID \"\(module.vendorID)\" is not 4 hex digits; write it as lsusb prints it, e.g. 2c7c")
            }
            if module.productIDs.isEmpty { report("no product ID; list at least one, e.g. [\"0296\"]") }
            for product in module.productIDs where !isHex4(product) {
                report("product ID \"\(product)\" is not 4 hex digits; write it as lsusb prints it, e.g. 0296")
            }
            for product in module.productIDs {
                let id = "\(module.vendorID):\(product)"
                if let earlier = rowOfID[id] {
                    report("\(id) is already in row \(earlier); one VID:PID has one interface map")
                } else {
                    rowOfID[id] = row
                }
            }
            if let hint = module.dialectHint,
                hint.isEmpty || !hint.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") })
            {
                report("dialect hint \"\(hint)\" is not an ATKit dialect identifier (lower case, digits, \"-\")")
            }
            if module.interfaces.isEmpty && module.otherInterfaces == nil {
                report("no interface has a role and otherInterfaces is nil: no tty of the module would be probed")
            }
            let numbers = Set(module.interfaces.keys).union(module.interfaceNotes.keys)
            for number in numbers.sorted() where !(0...255).contains(number) {
                report("interface \(number) is not a USB interface number (0…255)")
            }
            if let note = module.note, !isPrintable(note) { report("the note must be one line") }
            for (number, note) in module.interfaceNotes.sorted(by: { $0.key < $1.key })
            where !isPrintable(note) || note.isEmpty || note.contains("|") {
                report("the note on interface \(number) must be one non-empty line without \"|\"")
            }
        }
        return problems
    }

    private static func isHex4(_ text: String) -> Bool {
        text.count == 4 && text.allSatisfy { $0.isHexDigit && !$0.isUppercase }
    }

    /// No line breaks or other control characters: the text stays on its comment line.
    private static func isPrintable(_ text: String) -> Bool {
        !text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
