/// One probe's conversation with a module, after the wake phase: the session, the reboot watcher
/// and the notes for the report. Owned by the single task running ``ModemProbe/identify(_:)``.
final class ProbeRun {
    let session: ATSession
    let watcher: RebootWatchingTransport
    let port: String
    let options: ModemProbeOptions
    let timer: ATSessionClock
    private(set) var notes: [String] = []
    private var consecutiveTimeouts = 0

    init(
        session: ATSession,
        watcher: RebootWatchingTransport,
        port: String,
        options: ModemProbeOptions,
        timer: ATSessionClock
    ) {
        self.session = session
        self.watcher = watcher
        self.port = port
        self.options = options
        self.timer = timer
    }

    func note(_ text: String) {
        notes.append(text)
    }

    /// `ATE0` (echo is on after every boot, V.250 `E1`) and `AT+CMEE=1` (numeric `+CME ERROR`, so
    /// "no SIM" can be told from "not supported"). Failures are noted, not fatal: the session
    /// recognises echo anyway, and a module without `+CMEE` still answers `ERROR`.
    func setUp() async throws(ModemProbeError) {
        if case .failure(let failure) = try await attempt(ATCommandRequest("ATE0")) {
            note("ATE0 \(failure); echo stays on (harmless)")
        }
        if case .failure(let failure) = try await attempt(CMEE.Set(.numeric).request) {
            note("AT+CMEE=1 \(failure); errors will not say why")
        }
    }

    /// Runs `command`; after a reboot announced during it, waits for the module, sets it up again
    /// and runs it once more (a rebooting module drops the command, and a BC95 banner even ends in
    /// an `OK` that would complete it with banner lines).
    ///
    /// Throws what ends the probe: the port closing, or the module no longer answering at all
    /// (two timeouts in a row, or a resynchronisation probe unanswered).
    func query<Command: ATCommand>(
        _ command: Command
    ) async throws(ModemProbeError) -> Result<
        Command.Response, ProbeQueryFailure
    > {
        let generation = watcher.generation
        var result = try await attempt(command)
        if watcher.generation != generation {
            try await recoverFromReboot(during: command.command)
            result = try await attempt(command)
        }
        switch result {
        case .failure(.unresponsive(let attempts)):
            throw .modemError(
                port: port,
                command: command.command,
                detail: "the module stopped answering (\(attempts) resynchronisation probe(s) unanswered)"
            )
        case .failure(.timedOut(let after)) where consecutiveTimeouts >= 2:
            throw .modemError(port: port, command: command.command, detail: "no answer within \(after), twice in a row")
        default:
            return result
        }
    }

    /// The value of `command`, or nil with a note naming what it was for.
    func value<Command: ATCommand>(
        _ command: Command,
        for field: String
    ) async throws(ModemProbeError)
        -> Command.Response?
    {
        switch try await query(command) {
        case .success(let value):
            return value
        case .failure(let failure):
            note("\(field): \(command.command) \(failure)")
            return nil
        }
    }

    /// One try of `command`, with the probe's timeout unless the command has a longer one of its
    /// own. Throws only when the port closed.
    func attempt<Command: ATCommand>(
        _ command: Command
    ) async throws(ModemProbeError) -> Result<
        Command.Response, ProbeQueryFailure
    > {
        var request = command.request
        if request.timeout == nil { request.timeout = options.queryTimeout }
        do {
            let response = try await session.send(request)
            consecutiveTimeouts = 0
            do {
                return .success(try command.parse(response))
            } catch {
                var located = error
                located.port = port
                return .failure(.unparseable(located))
            }
        } catch let error as ATError {
            switch error {
            case .commandFailed(_, _, let final, _):
                consecutiveTimeouts = 0
                return .failure(.failed(final))
            case .timeout(_, _, let after):
                consecutiveTimeouts += 1
                return .failure(.timedOut(after))
            case .unresponsive(_, _, let attempts):
                return .failure(.unresponsive(attempts))
            case .transportClosed(_, _, let reason):
                throw .portClosed(port: port, command: command.command, reason: reason)
            case .sessionClosed:
                throw .portClosed(port: port, command: command.command, reason: .closedLocally)
            case .invalidCommand(_, let reason):
                throw .modemError(port: port, command: command.command, detail: reason)
            }
        } catch {
            throw .modemError(port: port, command: command.command, detail: "\(error)")
        }
    }

    /// Waits until the module answers `AT` again (within ``ModemProbeOptions/rebootRecoveryBudget``),
    /// then repeats the set-up.
    func recoverFromReboot(during command: String) async throws(ModemProbeError) {
        note("the module rebooted during \(command) (\(watcher.lastMarker ?? "boot banner")); set up again and retried")
        let elapsed = timer.startStopwatch()
        while elapsed() < options.rebootRecoveryBudget {
            do {
                _ = try await session.send(ATCommandRequest("AT", timeout: options.queryTimeout))
                consecutiveTimeouts = 0
                try await setUp()
                return
            } catch let error as ATError {
                if case .transportClosed(_, _, let reason) = error {
                    throw .portClosed(port: port, command: "AT", reason: reason)
                }
                // Booting: timeouts and unanswered resync probes are expected; keep asking.
                try? await timer.sleep(.milliseconds(100))
            } catch let error as ModemProbeError {
                throw error
            } catch {
                throw .modemError(port: port, command: "AT", detail: "\(error)")
            }
        }
        throw .modemError(
            port: port,
            command: command,
            detail: "the module rebooted and did not answer AT again within \(options.rebootRecoveryBudget)"
        )
    }
}
