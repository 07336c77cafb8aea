import ATKit

/// Which AT commands an operator may send on a supervised module's session without `--force`:
/// those that would change how the module talks (echo, result codes, line speed, framing, the
/// multiplexer), take it off the network or restart it behind the supervisor's back. A pure
/// function of the command line and the module's dialect (its reboot command counts too).
///
/// ```swift
/// SupervisedCommandPolicy.refusal(for: "AT+CSQ", dialect: .quectelBG9x)        // nil
/// SupervisedCommandPolicy.refusal(for: "AT+IPR=9600", dialect: .quectelBG9x)   // "AT+IPR changes the line speed…"
/// SupervisedCommandPolicy.refusal(for: "AT+CSQ;+CFUN=0", dialect: .ts27007)    // the second part is refused
/// ```
public enum SupervisedCommandPolicy {
    /// Why `command` would break the supervisor's view of the module, or nil when it is safe.
    public static func refusal(for command: String, dialect: ModemDialect) -> String? {
        for part in parts(of: command) {
            if let reason = refusal(forPart: part, dialect: dialect) { return reason }
        }
        return nil
    }

    /// One command of a `;`-joined line, upper case, with its `AT` prefix.
    static func refusal(forPart part: String, dialect: ModemDialect) -> String? {
        if let reboot = dialect.rebootCommand?.command.uppercased(), part == reboot {
            return "\(part) reboots the module (\(dialect.name)'s reboot command); use `nbgw modem reset`"
        }
        let compact = part.replacingOccurrences(of: " ", with: "")
        switch compact {
        case "ATZ", "ATZ0", "AT&F", "AT&F0":
            return "\(part) restores the module's defaults (echo, error format, URC settings) behind the supervisor"
        case "ATE", "ATE1":
            return "\(part) turns the echo on, which the supervisor turned off"
        case "ATV0":
            return "\(part) switches to numeric result codes the session does not read"
        case "ATQ1":
            return "\(part) silences the result codes every command waits for"
        case "AT+CMEE=0":
            return "\(part) hides the error codes the supervisor reads the SIM's state from"
        case "AT+CEREG=0":
            return "\(part) stops the registration reports the supervisor follows"
        case "AT+CFUN=0", "AT+CFUN=4":
            return "\(part) turns the radio off under the supervisor (it would turn it on again)"
        case "AT+COPS=2", "AT+CGATT=0":
            return "\(part) takes the module off the network under the supervisor"
        default:
            break
        }
        let prefixes: [(String, String)] = [
            ("ATS3", "changes the line terminator"), ("ATS4", "changes the line terminator"),
            ("AT+IPR", "changes the line speed: the supervisor would lose the module"),
            ("AT+ICF", "changes the character framing"), ("AT+IFC", "changes the flow control"),
            ("AT+CMUX", "starts the multiplexer: the port stops speaking plain AT"),
            ("AT+CFUN=1,1", "reboots the module; use `nbgw modem reset`"),
            ("AT+CFUN=15", "resets the module; use `nbgw modem reset`"),
            ("AT+CFUN=16", "resets the module; use `nbgw modem reset`"),
            ("AT+NRB", "reboots the module; use `nbgw modem reset`"), ("AT+QRST", "reboots the module"),
            ("AT+CREBOOT", "reboots the module"), ("AT+QPOWD", "powers the module off"),
            ("AT+CPOWD", "powers the module off"), ("AT+CPWROFF", "powers the module off"),
        ]
        for (prefix, what) in prefixes where compact.hasPrefix(prefix) {
            guard prefix.hasPrefix("AT+") || prefix.hasPrefix("ATS") else { continue }
            // A read or test form (`AT+IPR?`, `AT+CMUX=?`) changes nothing.
            let rest = compact.dropFirst(prefix.count)
            if rest.hasPrefix("?") || rest.hasPrefix("=?") { return nil }
            return "\(part) \(what)"
        }
        return nil
    }

    /// `AT+CSQ;+CFUN=0` → `["AT+CSQ", "AT+CFUN=0"]` (quotes respected), upper case.
    static func parts(of command: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var quoted = false
        for character in command.trimmingCharacters(in: .whitespaces) {
            if character == "\"" { quoted.toggle() }
            if character == ";" && !quoted {
                parts.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        parts.append(current)
        return parts.enumerated().compactMap { index, part in
            let trimmed = part.trimmingCharacters(in: .whitespaces).uppercased()
            guard !trimmed.isEmpty else { return nil }
            if index == 0 || trimmed.hasPrefix("AT") { return trimmed }
            return "AT" + trimmed
        }
    }
}
