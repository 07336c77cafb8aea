import ATKit

/// The policy's judgement of one command of a line (``SupervisedCommandPolicy``).
extension SupervisedCommandPolicy {
    /// Why `command` would break the supervisor's view, or nil; `reboot` is the first command of the
    /// dialect's reboot line.
    static func refusal(
        for command: ATCommandLine.Command,
        reboot: ATCommandLine.Command?,
        dialect: ModemDialect
    ) -> String? {
        // A read or test form changes nothing (`AT+IPR?`, `AT+CMUX=?`, `ATS3?`).
        guard command.form != .read, command.form != .test else { return nil }
        let part = "AT" + command.source.uppercased()
        if let reboot, isSame(command, as: reboot) {
            return "\(part) reboots the module (\(dialect.name)'s reboot command); use `nbgw modem reset`"
        }
        switch command.kind {
        case .basic: return basicRefusal(command, part)
        case .sParameter:
            let terminator = command.form == .set && (command.name == "S3" || command.name == "S4")
            return terminator ? "\(part) changes the line terminator" : nil
        case .extended: return extendedRefusal(command, part)
        }
    }

    /// V.250 basic commands; a missing number is 0 (V.250 §5.3.1), one too large to read is refused.
    private static func basicRefusal(_ command: ATCommandLine.Command, _ part: String) -> String? {
        let value = command.arguments.isEmpty ? 0 : command.arguments[0].integer
        switch command.name {
        case "Z", "&F":
            return "\(part) restores the module's defaults (echo, error format, URC settings) behind the supervisor"
        // `ATE` is `ATE0` to V.250, but was refused before this reading, and a module that reads it
        // otherwise would turn the echo on: only an explicit `E0` passes.
        case "E" where command.arguments.isEmpty || value != 0:
            return "\(part) turns the echo on, which the supervisor turned off"
        case "V" where value != 1:
            return "\(part) switches to numeric result codes the session does not read"
        case "Q" where value != 0:
            return "\(part) silences the result codes every command waits for"
        case "D":
            return "\(part) dials: a data call turns the port into a data line the supervisor cannot speak AT on"
        default:
            return nil
        }
    }

    /// Extended commands, by name and first argument.
    private static func extendedRefusal(_ command: ATCommandLine.Command, _ part: String) -> String? {
        let first = command.arguments.first?.integer
        // An empty or unreadable first value is the module's default (27.007 gives 0 to `+CEREG=`
        // and `+CMEE=`) or an error: refused where some value is.
        let unreadable =
            "\(part) gives no first value the policy can read as a number (an empty one is the module's "
            + "default, which may be the refused value)"
        switch command.name {
        case "+CFUN":
            // Only the level the supervisor brings the module up at passes: `1`, without a reset.
            // nRF91 levels (20 LTE off, 40 SIM off, 44 flight) and 2/3 (RX or TX off) take the
            // module off the air as surely as 0 and 4.
            let reset = command.arguments.count > 1 ? command.arguments[1].integer : 0
            switch (first, reset) {
            case (1?, 0?): return nil
            case (0?, _), (4?, _): return "\(part) turns the radio off under the supervisor (it would turn it on again)"
            case (1?, 1?): return "\(part) reboots the module; use `nbgw modem reset`"
            case (15?, _), (16?, _): return "\(part) resets the module; use `nbgw modem reset`"
            default:
                return "\(part) sets a functionality level the supervisor does not expect (only AT+CFUN=1 passes)"
            }
        case "+COPS":
            if first == 2 { return "\(part) takes the module off the network under the supervisor" }
            return first == nil ? unreadable : nil
        case "+CGATT":
            if first == 0 { return "\(part) takes the module off the network under the supervisor" }
            return first == 1 ? nil : unreadable
        case "+CEREG":
            if first == 0 { return "\(part) stops the registration reports the supervisor follows" }
            return first == nil ? unreadable : nil
        case "+CMEE":
            if first == 0 { return "\(part) hides the error codes the supervisor reads the SIM's state from" }
            return first == nil ? unreadable : nil
        case "+IPR": return "\(part) changes the line speed: the supervisor would lose the module"
        case "+ICF": return "\(part) changes the character framing"
        case "+IFC": return "\(part) changes the flow control"
        case "+CMUX": return "\(part) starts the multiplexer: the port stops speaking plain AT"
        case "+CGDATA": return "\(part) switches the port to data: the supervisor could not speak AT on it"
        case "+NRB": return "\(part) reboots the module; use `nbgw modem reset`"
        case "+QRST", "+CREBOOT": return "\(part) reboots the module"
        case "+QPOWD", "+CPOWD", "+CPWROFF": return "\(part) powers the module off"
        default: return nil
        }
    }

    /// Whether `command` is the dialect's reboot command: the same name, and its arguments start
    /// with the reboot's (numbers by value: `AT+QRST=01` is `AT+QRST=1`).
    private static func isSame(_ command: ATCommandLine.Command, as reboot: ATCommandLine.Command) -> Bool {
        guard command.kind == reboot.kind, command.name == reboot.name,
            command.arguments.count >= reboot.arguments.count
        else { return false }
        return zip(command.arguments, reboot.arguments).allSatisfy { given, expected in
            if let number = expected.integer { return given.integer == number }
            return given.value.uppercased() == expected.value.uppercased()
        }
    }
}
