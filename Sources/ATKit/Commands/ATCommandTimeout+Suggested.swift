import Foundation

extension ATCommandTimeout {
    /// The timeout a raw command line deserves, by recognising the slow commands above; nil for
    /// ordinary ones (use the session default). For tools that send what an operator typed.
    public static func suggested(for commandLine: String) -> Duration? {
        let command = commandLine.uppercased().replacingOccurrences(of: " ", with: "")
        let table: [(prefix: String, timeout: Duration)] = [
            ("AT+COPS=?", operatorScan), ("AT+COPS=", operatorSelection), ("AT+CFUN=1,1", reboot),
            ("AT+CFUN=15", reboot), ("AT+CFUN=16", reboot), ("AT+CFUN=", functionality), ("AT+CGATT=", attach),
            ("AT+NRB", reboot), ("AT+QRST", reboot), ("AT+CREBOOT", reboot), ("AT+CGDCONT=", configuration),
            ("AT+CPSMS=", configuration), ("AT+CEDRXS=", configuration),
        ]
        return table.first { command.hasPrefix($0.prefix) }?.timeout
    }
}
