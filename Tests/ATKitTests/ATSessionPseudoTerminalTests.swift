import ATKit
import Testing

#if canImport(Glibc)
import Glibc
import TestClocks
#endif

/// The whole stack (``SerialPortTransport`` + ``ATSession``) over a real pseudo-terminal; the test
/// plays the modem on the master side and waits on what it reads, never on sleeps.
@Suite(.timeLimit(.minutes(1)))
struct ATSessionPseudoTerminalTests {
    let pty: PseudoTerminal
    let session: ATSession
    let clock = ManualClock()
    let diagnostics = EventRecorder<ATSessionDiagnostic>()

    init() throws {
        pty = try PseudoTerminal()
        let transport = try SerialPortTransport(path: pty.slavePath)
        pty.releaseSlave()
        let diagnostics = self.diagnostics
        session = ATSession(
            transport: transport,
            configuration: ATSessionConfiguration(
                defaultTimeout: .seconds(5),
                guardTime: .zero,
                diagnostics: { diagnostics.record($0) }
            ),
            clock: clock
        )
    }

    @Test func echoedCommandGetsItsAnswer() async throws {
        let task = Task { try await session.send("AT+CGMM") }
        #expect(try await pty.readLine() == "AT+CGMM")
        try pty.write("AT+CGMM\r\r\nSIMCOM_SIM7080G\r\n\r\nOK\r\n")
        #expect(try await task.value == ATResponse(command: "AT+CGMM", lines: ["SIMCOM_SIM7080G"], final: .ok))
        await session.close()
    }

    @Test func concurrentSendsAreWrittenOneAtATimeInCallOrder() async throws {
        let count = 10
        var tasks: [Task<ATResponse, any Error>] = []
        for index in 0..<count {
            tasks.append(Task { try await session.send("AT+TEST=\(index)") })
            while await session.pendingCommandCount < index + 1 { await Task.yield() }
        }
        for index in 0..<count {
            #expect(try await pty.readLine() == "AT+TEST=\(index)")
            try pty.write("\r\n+TEST: \(index)\r\n\r\nOK\r\n")
        }
        for (index, task) in tasks.enumerated() {
            #expect(try await task.value.values(for: "+TEST") == ["\(index)"])
        }
        await session.close()
    }

    @Test func bc95BootOKWithNothingPendingIsIgnored() async throws {
        try pty.write(bytes: Transcripts.bc95PowerOn)
        await diagnostics.first { $0 == .unsolicitedFinal(.ok) }
        let task = Task { try await session.send("AT+CGMI") }
        #expect(try await pty.readLine() == "AT+CGMI")
        try pty.write("\r\nQuectel\r\n\r\nOK\r\n")
        #expect(try await task.value.lines == ["Quectel"])
        await session.close()
    }

    @Test func lateOKAfterATimeoutIsNotCreditedToTheNextCommand() async throws {
        let slow = Task { try await session.send(ATCommandRequest("AT+CGATT=1", timeout: .seconds(60))) }
        #expect(try await pty.readLine() == "AT+CGATT=1")
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(60))
        await #expect(throws: ATError.timeout(command: "AT+CGATT=1", port: pty.slavePath, after: .seconds(60))) {
            try await slow.value
        }
        let next = Task { try await session.send("AT+CIMI") }
        #expect(try await pty.readLine() == "AT+CMEE?")
        try pty.write("\r\nOK\r\n\r\n+CMEE: 1\r\n\r\nOK\r\n")
        #expect(try await pty.readLine() == "AT+CIMI")
        try pty.write("\r\n460001234567890\r\n\r\nOK\r\n")
        #expect(try await next.value.lines == ["460001234567890"])
        await session.close()
    }

    @Test func unplugFailsEveryQueuedCommandAtOnce() async throws {
        let inFlight = Task { try await session.send("AT+COPS=?") }
        #expect(try await pty.readLine() == "AT+COPS=?")
        let queued = [Task { try await session.send("AT+CGMI") }, Task { try await session.send("AT+CGSN") }]
        while await session.pendingCommandCount < 3 { await Task.yield() }
        pty.closeMaster()
        var failedCommands: [String] = []
        for task in [inFlight] + queued {
            do {
                _ = try await task.value
                Issue.record("command survived the unplug")
            } catch let error as ATError {
                guard case .transportClosed(let command?, let port, let reason) = error else {
                    Issue.record("unexpected \(error)")
                    continue
                }
                #expect(port == pty.slavePath)
                #expect([.endOfFile, .hangUp, .ioError(errno: EIO)].contains(reason))
                failedCommands.append(command)
            }
        }
        #expect(failedCommands.sorted() == ["AT+CGMI", "AT+CGSN", "AT+COPS=?"])
        #expect(await session.isClosed)
    }

    @Test func closingTheSessionReleasesThePort() async throws {
        await session.close()
        try await pty.waitForSlaveClose()
        let reopened = try SerialPortTransport(path: pty.slavePath)
        await reopened.close()
    }
}
