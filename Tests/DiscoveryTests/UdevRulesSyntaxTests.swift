import Testing

/// The strict checker of systemd's rules grammar, on our rules file and on lines it must refuse or accept.
@Suite("udev rules: syntax")
struct UdevRulesSyntaxTests {
    @Test("every line of udev-rules/90-nbgw.rules follows systemd's rules grammar")
    func ourRulesParse() throws {
        let text = try RepositoryFiles.text(RepositoryFiles.rulesPath)
        let file: UdevRulesFile
        do {
            file = try UdevRulesFile(text: text)
        } catch {
            Issue.record("\(RepositoryFiles.rulesPath):\n\(error)")
            return
        }
        // Every non-comment physical line belongs to a rule: nothing was silently dropped.
        let ruleLines = text.split(separator: "\n", omittingEmptySubsequences: false).filter {
            let trimmed = $0.trimmingCharacters(in: .whitespaces)
            return !trimmed.isEmpty && !trimmed.hasPrefix("#") && !$0.hasPrefix(" ")
        }
        #expect(file.rules.count == ruleLines.count)
        #expect(file.rules.contains { $0.label == "nbgw_end" })
        #expect(file.rules.last?.label == "nbgw_end")
    }

    struct Bad: CustomTestStringConvertible, Sendable {
        var text: String
        var problem: String
        var testDescription: String { text.replacingOccurrences(of: "\n", with: "⏎") }
    }

    static let badRules: [Bad] = [
        Bad(text: #"ACTION=="add" SUBSYSTEM=="tty", GOTO="x"\#nLABEL="x""#, problem: "expected \", \""),
        Bad(text: #"ACTION=="add","#, problem: "trailing comma"),
        Bad(text: #"ACTION=="add",SUBSYSTEM=="tty""#, problem: "whitespace after the comma"),
        Bad(text: #"ACTON=="add""#, problem: "unknown key ACTON"),
        Bad(text: #"ATTRS{idVendor}="2c7c""#, problem: "ATTRS does not take ="),
        Bad(text: #"GROUP=="dialout""#, problem: "GROUP does not take =="),
        Bad(text: #"ENV{DEVNAME}="/dev/x""#, problem: "udev's own"),
        Bad(text: #"ENV{X}-="1""#, problem: "ENV does not take -="),
        Bad(text: #"KERNEL{x}=="ttyUSB*""#, problem: "takes no {attribute}"),
        Bad(text: #"ATTRS=="x""#, problem: "needs an {attribute}"),
        Bad(text: #"IMPORT{bultin}="usb_id""#, problem: "is not one of"),
        Bad(text: #"IMPORT{builtin}="usb_idd""#, problem: "unknown builtin"),
        Bad(text: #"SUBSYSTEM=="tty", GOTO="nowhere""#, problem: "has no LABEL"),
        Bad(text: #"LABEL="unused""#, problem: "never a GOTO target"),
        Bad(text: #"LABEL="x"\#nSUBSYSTEM=="tty", GOTO="x""#, problem: "jumps backwards"),
        Bad(text: #"GOTO="x", GOTO="x"\#nLABEL="x""#, problem: "more than one GOTO"),
        Bad(text: #"ENV{X}=="a|""#, problem: "empty alternative"),
        Bad(text: #"KERNEL=="tty[A-Z""#, problem: "unbalanced ["),
        Bad(text: #"SYMLINK+="nbgw/$envv{A}""#, problem: "unknown substitution $envv"),
        Bad(text: #"ENV{A}="$env""#, problem: "needs {NAME}"),
        Bad(text: #"ENV{A}="%q""#, problem: "unknown substitution %q"),
        Bad(text: #"MODE="0999""#, problem: "not an octal mode"),
        Bad(text: #"ENV{A}=="unterminated"#, problem: "unterminated value"),
        Bad(text: #"ACTION=='add'"#, problem: "double-quoted"),
        Bad(text: #"ACTION=="add", \"#, problem: "ends inside a line continuation"),
        Bad(text: #"ACTION=="add" # trailing comment"#, problem: "expected \", \""),
        Bad(text: #"ACTION~="add""#, problem: "expected an operator"),
    ]

    @Test("the checker refuses each broken rule with the reason", arguments: badRules)
    func refuses(_ bad: Bad) {
        do {
            _ = try UdevRulesFile(text: bad.text)
            Issue.record("accepted: \(bad.text)")
        } catch {
            #expect(error.description.contains(bad.problem), "\(error.description)")
        }
    }

    @Test("the checker accepts the idioms of stock and ModemManager-style rules")
    func accepts() throws {
        let text = #"""
            # comment, then a blank line

            ACTION!="add|change|move|bind", GOTO="vendor_end"
            SUBSYSTEMS=="usb", ATTRS{idVendor}=="2c7c", GOTO="vendor_ports"
            GOTO="vendor_end"
            LABEL="vendor_ports"
            SUBSYSTEMS=="usb", ATTRS{bInterfaceNumber}=="?*", ENV{.IFNUM}="$attr{bInterfaceNumber}"
            ATTRS{idVendor}=="2c7c", ATTRS{idProduct}=="0296", ENV{.IFNUM}=="01", \
                # a comment inside a continuation is skipped
                SUBSYSTEM=="tty", ENV{ID_MM_PORT_TYPE_GPS}="1"
            KERNEL=="ttyUSB[0-9]*", MODE:="0660", GROUP="dialout", OPTIONS+="link_priority=-10"
            IMPORT{builtin}="path_id", ENV{ID_PATH}=="?*", SYMLINK+="serial/by-path/$env{ID_PATH}-port%n"
            ENV{ID_X}=e"tab\tin value", TAG+="systemd", RUN+="/bin/true %k $$"
            ENV{QUOTED}="a \"quoted\" word"
            LABEL="vendor_end"
            """#
        let file = try UdevRulesFile(text: text)
        #expect(file.rules.count == 11)
        let quoted = file.rules.first { $0.tokens.contains { $0.attribute == "QUOTED" } }
        #expect(quoted?.tokens.first?.value == #"a "quoted" word"#)
        let continued = file.rules.first { $0.tokens.contains { $0.attribute == "ID_MM_PORT_TYPE_GPS" } }
        #expect(continued?.tokens.count == 5)
    }
}
