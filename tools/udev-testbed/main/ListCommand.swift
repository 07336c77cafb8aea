import ArgumentParser
import Discovery

/// `list`: ``UdevDiscovery/enumerate()`` and the candidate policy's decision for every tty (the standard
/// tables with the ``PolicyOptions`` selection), one JSON line each
/// (`{"event":"port","port":{...},"decision":{...}}`), then `{"event":"listed","count":N}`.
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Enumerate tty ports with the Discovery library and print each one with its candidate decision."
    )

    @Flag(help: "Only ports with a USB parent.")
    var usbOnly = false

    @OptionGroup var selection: PolicyOptions

    func run() throws {
        let discovery = try UdevDiscovery()
        let policy = try selection.policy()
        let ports = try discovery.enumerate().filter { !usbOnly || $0.isUSB }
        for port in ports {
            JSONOutput.emit(DiscoveryOutput.port(port, event: "port", policy: policy))
        }
        JSONOutput.emit(["event": "listed", "count": ports.count])
    }
}
