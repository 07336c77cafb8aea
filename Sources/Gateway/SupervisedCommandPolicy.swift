import ATKit

/// Which AT commands an operator may send on a supervised module's session without `--force`:
/// those that would change how the module talks (echo, result codes, line speed, framing, the
/// multiplexer, data mode), take it off the network or restart it behind the supervisor's back. A
/// pure function of the command line and the module's dialect (its reboot command counts too).
///
/// The line is read as the module reads it (``ATCommandLine``, ITU-T V.250): every command of it,
/// `;`-joined extended ones and basic ones run together (`ATE1V0`), each judged by its name and
/// first argument whatever follows (`AT+CFUN=4,0`, `at+cfun = 4`); read and test forms always pass.
/// A line that cannot be read is refused: what the policy cannot check is not sent unchecked.
///
/// ```swift
/// SupervisedCommandPolicy.refusal(for: "AT+CSQ", dialect: .quectelBG9x)        // nil
/// SupervisedCommandPolicy.refusal(for: "AT+IPR=9600", dialect: .quectelBG9x)   // "AT+IPR=9600 changes the line speed…"
/// SupervisedCommandPolicy.refusal(for: "AT+CSQ;+CFUN=0", dialect: .ts27007)    // the second command is refused
/// SupervisedCommandPolicy.refusal(for: "ATE0V0", dialect: .ts27007)            // "ATV0 switches to numeric result codes…"
/// ```
public enum SupervisedCommandPolicy {
    /// Why `command` would break the supervisor's view of the module, or nil when it is safe.
    ///
    /// The reason starts with the refused command as written (upper case, `AT` in front), and never
    /// quotes an unreadable line, which may hold a PIN.
    public static func refusal(for command: String, dialect: ModemDialect) -> String? {
        let line: ATCommandLine
        do {
            line = try ATCommandLine(command)
        } catch {
            return "the line cannot be read as V.250 AT commands (\(error)) and is not sent unchecked "
                + "(correct it if it is a typo)"
        }
        let reboot = dialect.rebootCommand.flatMap { try? ATCommandLine($0.command) }?.commands.first
        for each in line.commands {
            if let reason = refusal(for: each, reboot: reboot, dialect: dialect) { return reason }
        }
        return nil
    }
}
