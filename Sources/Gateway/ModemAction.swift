/// What an operator can ask of a supervised modem through the daemon (`nbgw modem …`, docs/control.md).
public enum ModemAction: String, Sendable, Hashable, Codable, CaseIterable {
    /// Reboot the module with its dialect's command (`AT+CFUN=1,1`, `AT+NRB`, …), then probe it afresh.
    case reset
    /// Close the port and probe it afresh (no reboot).
    case reprobe
    /// Close the port and leave it alone (state `released`) until ``resume`` or an unplug.
    case release
    /// Supervise a released port again.
    case resume
}
