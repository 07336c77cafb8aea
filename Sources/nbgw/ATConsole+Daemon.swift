import ATKit
import ArgumentParser
import Control
import Foundation
import Gateway
import NBGWCore
import Registry

#if canImport(Glibc)
import Glibc
#endif

/// `nbgw at` through the daemon: which way the commands go, and the daemon's side of the batch and
/// of the console.
extension ATConsole {
    /// How the commands reach the module.
    enum Route {
        /// The daemon supervises it: its control socket, the module's own session.
        case daemon(ControlClient, ModemStatus)
        /// Nobody holds it: open the port.
        case direct(String)
    }

    /// The daemon's supervised modem when there is one (and it is not released), else the port
    /// itself: a path as given, an IMEI's last port from the store when no daemon runs.
    func chooseRoute() throws(NBGWError) -> Route {
        let isIMEI = tty.utf8.count == 15 && tty.utf8.allSatisfy { (48...57).contains($0) }
        if let client = try DaemonControl.connectIfRunning() {
            do {
                let modem: ControlModem = try client.request(ControlRequest(id: client.newID(), op: .modem, modem: tty))
                if modem.modem.state == .released {
                    if !port.json {
                        FileHandle.standardError.write(
                            Data("note: \(tty) is released by the daemon: opening \(modem.modem.port) directly\n".utf8)
                        )
                    }
                    return .direct(modem.modem.port)
                }
                return .daemon(client, modem.modem)
            } catch  where error.code == .unknownModem && !isIMEI {
                // A port the daemon does not supervise (skipped by discovery, not_modem): open it.
                return .direct(tty)
            }
        }
        guard isIMEI else { return .direct(tty) }
        let store = try? StoreOptions.parse([]).openExistingRegistry()
        guard let record = try? store?.modems.find(imeiOrPort: tty) else {
            throw NBGWError(
                .unknownModem,
                "no daemon runs and the store knows no modem with IMEI \(tty): give its port (e.g. /dev/ttyUSB2)"
            )
        }
        return .direct(record.port)
    }

    /// Runs `lines` (none: the console) on the daemon's session with `modem`.
    func throughDaemon(_ client: ControlClient, modem: ModemStatus, lines: [String]) throws {
        let name = modem.imei.map { "\(modem.port) (IMEI \($0))" } ?? modem.port
        if lines.isEmpty {
            try daemonConsole(client, modem: modem, name: name)
            return
        }
        var results: [Result] = []
        var urcs: [String] = []
        var failure: NBGWError?
        for command in lines {
            let answer: ControlATResult
            do {
                answer = try client.request(
                    ControlRequest(
                        id: client.newID(),
                        op: .at,
                        modem: tty,
                        command: command,
                        timeout: timeout,
                        force: force
                    ),
                    timeout: .seconds(Int64(timeout) + 660)
                )
            } catch {
                failure = error
                break
            }
            let shown = ATCommandRedaction.redact(command)
            results.append(Result(command: shown, lines: answer.lines, final: answer.final, ok: answer.ok))
            urcs += answer.urcs
            for urc in answer.urcs { FileHandle.standardError.write(Data("urc: \(urc)\n".utf8)) }
            if !port.json {
                for line in answer.lines { Output.line(line) }
                Output.line(answer.final)
                if answer.reprobing {
                    FileHandle.standardError.write(
                        Data("note: the daemon probes \(name) afresh after this command\n".utf8)
                    )
                }
            }
            if !answer.ok, failure == nil {
                failure = NBGWError(.internalError, "\(shown) on \(name): \(answer.final)")
            }
        }
        if port.json {
            Output.json(BatchReport(port: modem.port, baud: nil, via: "daemon", results: results, urcs: urcs))
        }
        if let failure {
            if failure.code == .internalError {
                throw ModemExit.fail(code: "MODEM_ERROR", message: failure.message, status: 52, json: false)
            }
            throw ModemExit.fail(
                code: failure.code.rawValue,
                message: failure.message,
                status: failure.code.exitCode,
                json: port.json
            )
        }
    }

    /// The interactive console through the daemon: what is typed goes to the module's session,
    /// URCs are shown as they come (`urc:` on stderr), Ctrl-D or `exit` leaves.
    func daemonConsole(_ client: ControlClient, modem: ModemStatus, name: String) throws {
        let urcID = client.newID()
        let _: ControlModem = try client.request(ControlRequest(id: urcID, op: .urcs, modem: tty))
        if !port.json {
            FileHandle.standardError.write(
                Data(
                    "connected to \(name) through nbgwd (its supervisor keeps running); type AT commands, Ctrl-D to leave\n"
                        .utf8
                )
            )
        }
        var input: [UInt8] = []
        var pending: [Int: String] = [:]
        var stdinOpen = true
        while stdinOpen || !pending.isEmpty {
            while let line = client.takeLine() {
                let head = try client.head(line)
                switch head.type {
                case .urc:
                    if let urc = client.decode(ControlURC.self, from: line) {
                        if port.json {
                            Output.json(Event(type: "urc", line: urc.line))
                        } else {
                            FileHandle.standardError.write(Data("urc: \(urc.line)\n".utf8))
                        }
                    }
                case .result, .error:
                    guard let id = head.id, let command = pending.removeValue(forKey: id) else { continue }
                    if let error = head.error {
                        if port.json {
                            Output.json(
                                Event(
                                    type: "error",
                                    command: ATCommandRedaction.redact(command),
                                    final: "\(error.code): \(error.message)",
                                    ok: false
                                )
                            )
                        } else {
                            FileHandle.standardError.write(Data("error: \(error.code): \(error.message)\n".utf8))
                        }
                    } else if let answer = client.decode(ControlATResult.self, from: line) {
                        if port.json {
                            Output.json(
                                Event(
                                    type: "response",
                                    command: ATCommandRedaction.redact(command),
                                    lines: answer.lines,
                                    final: answer.final,
                                    ok: answer.ok
                                )
                            )
                        } else {
                            for line in answer.lines { Output.line(line) }
                            Output.line(answer.final)
                        }
                    }
                default:
                    continue
                }
            }
            // Everything answered and nothing more to read: done (the loop's condition is only
            // checked before the lines above are handled).
            if !stdinOpen && pending.isEmpty { break }
            var fds = [pollfd(fd: client.fd, events: Int16(POLLIN), revents: 0)]
            if stdinOpen { fds.append(pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)) }
            if poll(&fds, nfds_t(fds.count), -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            if fds[0].revents != 0, try !client.fill() {
                throw ModemExit.fail(
                    code: "DAEMON_NOT_RUNNING",
                    message: "nbgwd closed the connection",
                    status: 56,
                    json: port.json
                )
            }
            guard stdinOpen, fds.count > 1, fds[1].revents != 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(STDIN_FILENO, &chunk, chunk.count)
            if count <= 0 {
                stdinOpen = false
                continue
            }
            input += chunk[0..<count]
            while let end = input.firstIndex(of: UInt8(ascii: "\n")) {
                let command = String(decoding: input[..<end], as: UTF8.self).trimmingCharacters(
                    in: .whitespacesAndNewlines
                )
                input.removeSubrange(...end)
                if command.isEmpty { continue }
                if ["exit", "quit"].contains(command.lowercased()) {
                    stdinOpen = false
                    break
                }
                let id = client.newID()
                pending[id] = command
                try client.send(
                    ControlRequest(id: id, op: .at, modem: tty, command: command, timeout: timeout, force: force)
                )
            }
        }
    }
}
