import ArgumentParser
import Control
import Foundation
import Gateway
import NBGWCore

/// `nbgw modem reset|reprobe|release|resume IMEI|PORT`: asks the daemon's supervisor of one modem
/// to act, then follows the modem until it settles (`--no-wait`: returns once the request is taken).
struct ModemActionOptions: ParsableArguments {
    @Argument(help: "The modem's IMEI, or its port (e.g. /dev/ttyUSB2).")
    var modem: String

    @Flag(name: .customLong("no-wait"), help: "Return once the daemon has taken the request.")
    var noWait = false

    @Option(help: "Seconds to wait for the modem to settle (ready, waiting, locked, failed, released).")
    var timeout: Double = 180

    @Flag(help: "Print JSON: the request's result, then one object per state change.")
    var json = false

    func validate() throws {
        guard timeout > 0, timeout <= 3600 else {
            throw ValidationError("--timeout must be between 0 and 3600 seconds")
        }
    }

    /// Sends `action` and follows the modem; prints each state it goes through.
    func perform(_ action: ModemAction) async throws {
        try await Output.run(json: json) {
            let client = try DaemonControl.connect()
            let watchID = client.newID()
            // Every module's changes, from before the request: none of this one's can be missed.
            if !noWait {
                let _: ControlModems = try client.request(ControlRequest(id: watchID, op: .watch))
            }
            var early: [[UInt8]] = []
            let result: ControlActionResult = try client.request(
                ControlRequest(id: client.newID(), op: .action, modem: modem, action: action.rawValue)
            ) { _, line in early.append(line) }
            let name = result.modem.imei.map { "\(result.modem.port) (IMEI \($0))" } ?? result.modem.port
            if json {
                Output.json(result)
            } else {
                Output.line("\(action.rawValue) of \(name) taken by nbgwd (it was \(result.modem.state.rawValue))")
            }
            if noWait { return }
            try follow(client, watch: watchID, port: result.modem.port, early: early, action: action, name: name)
        }
    }

    /// Prints the states of the modem on `port` (the events in `early` first) until it settles, or
    /// fails with `TIMEOUT`.
    private func follow(
        _ client: ControlClient,
        watch: Int,
        port: String,
        early: [[UInt8]],
        action: ModemAction,
        name: String
    ) throws {
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
        var started = action == .release
        var settled: ModemStatus?
        var last: (ModemState, String?)?
        let timer = DispatchSource.makeTimerSource()
        let (stopRead, stopWrite) = try Self.pipe()
        timer.schedule(deadline: .now() + timeout)
        timer.setEventHandler {
            var byte: UInt8 = 1; _ = write(stopWrite, &byte, 1)
        }
        timer.resume()
        defer {
            timer.cancel()
            close(stopRead)
            close(stopWrite)
        }
        let handle: (ControlReplyHead, [UInt8]) -> Bool = { head, line in
            guard head.type == .event, head.id == watch, let status = client.decode(ModemStatus.self, from: line),
                status.port == port
            else {
                return true
            }
            // The IMEI read while probing is announced as a second `probing`: one line is enough.
            if last?.0 != status.state || last?.1 != status.reason?.code {
                if json {
                    Output.json(status)
                } else {
                    let reason = status.reason.map { "  \($0.code): \($0.message)" } ?? ""
                    Output.line("\(Output.time(Date()))  \(status.state.rawValue)\(reason)")
                }
            }
            last = (status.state, status.reason?.code)
            if status.state == .probing { started = true }
            if started, Self.settles(status.state, after: action) {
                settled = status
                return false
            }
            return true
        }
        var going = true
        for line in early where going {
            going = handle(try client.head(line), line)
        }
        if going {
            try client.follow(stop: stopRead) { head, line in handle(head, line) }
        }
        guard let settled else {
            let waited =
                ContinuousClock.now < deadline ? "the daemon closed the connection" : "\(Int(timeout)) s passed"
            throw NBGWError(
                .timeout,
                "\(name) did not settle after the \(action.rawValue) (\(waited)); follow it with `nbgw modems --watch`"
            )
        }
        if !json, let advice = settled.reason?.advice {
            Output.line("what to do: \(advice)")
        }
    }

    static func settles(_ state: ModemState, after action: ModemAction) -> Bool {
        switch action {
        case .release: state == .released
        default: [.ready, .waiting, .locked, .failed, .released, .notModem, .absent].contains(state)
        }
    }

    static func pipe() throws -> (Int32, Int32) {
        var fds: [Int32] = [0, 0]
        guard Foundation.pipe(&fds) == 0 else {
            throw NBGWError(.internalError, "no pipe: \(String(cString: strerror(errno)))")
        }
        return (fds[0], fds[1])
    }
}

extension Modem {
    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Reboot one supervised modem (its dialect's reboot command) and probe it afresh.",
            discussion: "Through the daemon's control socket; the other modems carry on. Audited with your user name."
        )
        @OptionGroup var options: ModemActionOptions
        func run() async throws { try await options.perform(.reset) }
    }

    struct Reprobe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Close one supervised modem's port and probe it afresh (no reboot).",
            discussion: "Through the daemon's control socket; the other modems carry on. Audited with your user name."
        )
        @OptionGroup var options: ModemActionOptions
        func run() async throws { try await options.perform(.reprobe) }
    }

    struct Release: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Make the daemon close one modem's port and leave it alone (for a flashing tool or a technician).",
            discussion: """
                The modem shows `released` until `nbgw modem resume`, until it is unplugged, or until the daemon \
                restarts. Meanwhile `nbgw at PORT` opens the port directly. Audited with your user name.
                """
        )
        @OptionGroup var options: ModemActionOptions
        func run() async throws { try await options.perform(.release) }
    }

    struct Resume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give a released modem back to the daemon, which probes it afresh.",
            discussion: "Through the daemon's control socket. Audited with your user name."
        )
        @OptionGroup var options: ModemActionOptions
        func run() async throws { try await options.perform(.resume) }
    }
}
