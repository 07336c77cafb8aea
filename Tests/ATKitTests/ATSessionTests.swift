import ATKit
import TestClocks
import Testing

/// The session over the in-memory ``FakeModem``. Time only moves through ``ManualClock``; the
/// tests wait on events (a command written, a diagnostic reported), never on sleeps.
@Suite(.timeLimit(.minutes(1)))
struct ATSessionTests {
    let modem = FakeModem()
    let clock = ManualClock()
    let diagnostics = EventRecorder<ATSessionDiagnostic>()

    private func makeSession(
        guardTime: Duration = .zero,
        urcTable: ATURCTable = .ts27007Baseline,
        resync: ATResyncPolicy = ATResyncPolicy()
    ) -> ATSession {
        let diagnostics = self.diagnostics
        return ATSession(
            transport: modem.transport,
            configuration: ATSessionConfiguration(
                defaultTimeout: .seconds(5),
                guardTime: guardTime,
                urcTable: urcTable,
                resync: resync,
                diagnostics: { diagnostics.record($0) }
            ),
            clock: clock
        )
    }

    /// Starts `request` and waits until the modem has received it.
    private func sendAndAwaitWrite(
        _ session: ATSession,
        _ request: ATCommandRequest
    ) async throws -> Task<ATResponse, any Error> {
        let task = Task { try await session.send(request) }
        #expect(try await modem.nextCommand() == request.command)
        return task
    }

    // MARK: Responses

    @Test func returnsInformationLinesWithoutEchoAndTheFinalResult() async throws {
        let session = makeSession()
        let task = try await sendAndAwaitWrite(session, "AT+CGMI")
        modem.reply("AT+CGMI\r\r\nQuectel\r\n\r\nOK\r\n")
        let response = try await task.value
        #expect(response == ATResponse(command: "AT+CGMI", lines: ["Quectel"], final: .ok))
    }

    @Test func failureFinalResultThrowsCommandFailedNamingCommandAndPort() async throws {
        let session = makeSession()
        let task = try await sendAndAwaitWrite(session, "AT+CIMI")
        modem.reply("\r\n+CME ERROR: 10\r\n")
        await #expect(
            throws: ATError.commandFailed(
                command: "AT+CIMI",
                port: "/dev/fake0",
                final: .cmeError(code: 10, text: nil),
                lines: []
            )
        ) {
            try await task.value
        }
    }

    @Test func urcInTheMiddleOfAResponseGoesToTheURCStreamInOrder() async throws {
        let session = makeSession()
        let task = try await sendAndAwaitWrite(session, "AT+CEREG?")
        modem.reply("\r\n+CEREG: 5\r\n\r\n+CEREG: 2,5,\"1A2B\",\"01A2D101\",9\r\n\r\n+QIND: SMS DONE\r\n\r\nOK\r\n")
        let response = try await task.value
        #expect(response.lines == ["+CEREG: 2,5,\"1A2B\",\"01A2D101\",9"])
        #expect(response.values(for: "+CEREG") == ["2,5,\"1A2B\",\"01A2D101\",9"])
        var urcs = session.urcs.makeAsyncIterator()
        #expect(await urcs.next()?.line == "+CEREG: 5")
        #expect(await urcs.next()?.line == "+QIND: SMS DONE")
    }

    @Test func multiLineURCCarriesItsTrailingLine() async throws {
        let session = makeSession()
        modem.reply("\r\n+CMT: \"+31612345678\",,\"24/01/01,12:00:00+04\"\r\nhello\r\n\r\nRING\r\n")
        var urcs = session.urcs.makeAsyncIterator()
        let sms = await urcs.next()
        #expect(sms?.name == "+CMT")
        #expect(sms?.trailingLines == ["hello"])
        #expect(await urcs.next()?.line == "RING")
    }

    @Test func overLongLineIsCutReportedAndDoesNotDisturbTheResponse() async throws {
        let diagnostics = self.diagnostics
        let session = ATSession(
            transport: modem.transport,
            configuration: ATSessionConfiguration(
                guardTime: .zero,
                maxLineLength: 32,
                diagnostics: { diagnostics.record($0) }
            ),
            clock: clock
        )
        let task = try await sendAndAwaitWrite(session, "AT+COPS=?")
        modem.reply(
            "\r\n+COPS: " + String(repeating: "(1,\"Operator\",\"OP\",\"00101\",9),", count: 20)
                + ",(0-4),(0-2)\r\nOK\r\n"
        )
        let response = try await task.value
        #expect(response.lines.count == 1)
        #expect(response.lines.first?.utf8.count == 32)
        await diagnostics.first { if case .truncatedLine(let line) = $0 { line.isTruncated } else { false } }
    }

    // MARK: Queue

    @Test func commandsAreWrittenInCallOrderOneAtATime() async throws {
        let session = makeSession()
        var tasks: [Task<ATResponse, any Error>] = []
        for index in 0..<3 {
            tasks.append(Task { try await session.send("AT+TEST=\(index)") })
            // Enqueue strictly in this order before starting the next caller.
            while await session.pendingCommandCount < index + 1 { await Task.yield() }
        }
        for index in 0..<3 {
            #expect(try await modem.nextCommand() == "AT+TEST=\(index)")
            #expect(modem.unreadHostBytes == 0, "the next command must wait for this one's final result")
            modem.reply("\r\n+TEST: \(index)\r\n\r\nOK\r\n")
        }
        for (index, task) in tasks.enumerated() {
            #expect(try await task.value.lines == ["+TEST: \(index)"])
        }
    }

    @Test func concurrentSendsAreSerialisedAndEachGetsItsOwnAnswer() async throws {
        let session = makeSession()
        let count = 25
        let modem = self.modem
        let responder = Task {
            for _ in 0..<count {
                let command = try await modem.nextCommand()
                #expect(modem.unreadHostBytes == 0)
                let index = command.dropFirst("AT+TEST=".count)
                modem.reply("\r\n+TEST: \(index)\r\n\r\nOK\r\n")
            }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                group.addTask {
                    let response = try await session.send("AT+TEST=\(index)")
                    #expect(response.values(for: "+TEST") == ["\(index)"])
                }
            }
            try await group.waitForAll()
        }
        try await responder.value
    }

    @Test func cancellingAQueuedCommandWithdrawsItWithoutWritingIt() async throws {
        let session = makeSession()
        let first = try await sendAndAwaitWrite(session, "AT+CSQ")
        let second = Task { try await session.send("AT+CGATT=1") }
        while await session.pendingCommandCount < 2 { await Task.yield() }
        second.cancel()
        await #expect(throws: CancellationError.self) { try await second.value }
        modem.reply("\r\n+CSQ: 17,99\r\n\r\nOK\r\n")
        #expect(try await first.value.lines == ["+CSQ: 17,99"])
        let third = try await sendAndAwaitWrite(session, "AT")
        modem.reply("\r\nOK\r\n")
        _ = try await third.value
    }

    @Test func guardTimeDelaysTheNextCommand() async throws {
        let session = makeSession(guardTime: .milliseconds(100))
        let first = try await sendAndAwaitWrite(session, "AT")
        modem.reply("\r\nOK\r\n")
        _ = try await first.value
        let second = Task { try await session.send("AT+CGMI") }
        await clock.waitForSleepers(1)  // the dispatcher waiting out the guard time
        #expect(modem.unreadHostBytes == 0)
        clock.advance(by: .milliseconds(100))
        #expect(try await modem.nextCommand() == "AT+CGMI")
        modem.reply("\r\nQuectel\r\nOK\r\n")
        _ = try await second.value
    }

    @Test func rejectsCommandLinesWithControlCharacters() async {
        let session = makeSession()
        await #expect(throws: ATError.self) { try await session.send("AT\rAT+CFUN=0") }
    }

    // MARK: Timeouts and late final results

    @Test func timesOutWhenNoFinalResultArrives() async throws {
        let session = makeSession()
        let task = try await sendAndAwaitWrite(session, ATCommandRequest("AT+COPS=?", timeout: .seconds(180)))
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(179))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(1))
        await #expect(throws: ATError.timeout(command: "AT+COPS=?", port: "/dev/fake0", after: .seconds(180))) {
            try await task.value
        }
    }

    @Test func lateFinalResultIsNotCreditedToTheNextCommand() async throws {
        let session = makeSession()
        let slow = try await sendAndAwaitWrite(session, ATCommandRequest("AT+CSQ", timeout: .seconds(2)))
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(2))
        await #expect(throws: ATError.self) { try await slow.value }
        #expect(await session.isResynchronising)

        // The next command is held back; a probe goes first.
        let next = Task { try await session.send("AT+CGMI") }
        #expect(try await modem.nextCommand() == "AT+CMEE?")
        // The slow command's answer finally arrives, then the probe's.
        modem.reply("\r\n+CSQ: 17,99\r\n\r\nOK\r\n")
        modem.reply("\r\n+CMEE: 1\r\n\r\nOK\r\n")
        #expect(try await modem.nextCommand() == "AT+CGMI")
        modem.reply("\r\nQuectel\r\n\r\nOK\r\n")
        #expect(try await next.value == ATResponse(command: "AT+CGMI", lines: ["Quectel"], final: .ok))
        #expect(await !session.isResynchronising)

        let events = diagnostics.events
        #expect(events.contains(.lateFinal(command: "AT+CSQ", final: .ok)))
        #expect(events.contains(.lateLine(command: "AT+CSQ", line: "+CSQ: 17,99")))
        #expect(events.contains(.resynchronised(afterCommand: "AT+CSQ")))
    }

    @Test func lateFinalResultWhileIdleResynchronisesWithoutAProbe() async throws {
        let session = makeSession()
        let slow = try await sendAndAwaitWrite(session, ATCommandRequest("AT+CGATT=1", timeout: .seconds(1)))
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        await #expect(throws: ATError.self) { try await slow.value }

        modem.reply("\r\nERROR\r\n")
        await diagnostics.first { $0 == .lateFinal(command: "AT+CGATT=1", final: .error) }
        #expect(await !session.isResynchronising)

        let next = try await sendAndAwaitWrite(session, "AT+CGATT?")
        modem.reply("\r\n+CGATT: 1\r\n\r\nOK\r\n")
        #expect(try await next.value.lines == ["+CGATT: 1"])
    }

    @Test func probeErrorWithNothingElseUnansweredStillResynchronises() async throws {
        let session = makeSession()
        let slow = try await sendAndAwaitWrite(session, ATCommandRequest("AT+CSQ", timeout: .seconds(1)))
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        await #expect(throws: ATError.self) { try await slow.value }
        let next = Task { try await session.send("AT") }
        #expect(try await modem.nextCommand() == "AT+CMEE?")
        modem.reply("\r\nOK\r\n")  // the slow command's final
        modem.reply("\r\nERROR\r\n")  // the probe's own (a modem without +CMEE?)
        #expect(try await modem.nextCommand() == "AT")
        modem.reply("\r\nOK\r\n")
        #expect(try await next.value.final == .ok)
    }

    @Test func unansweredProbesFailQueuedCommandsAsUnresponsive() async throws {
        let session = makeSession(resync: ATResyncPolicy(timeout: .seconds(1), maxAttempts: 3))
        let slow = try await sendAndAwaitWrite(session, ATCommandRequest("AT+CSQ", timeout: .seconds(1)))
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        await #expect(throws: ATError.self) { try await slow.value }

        let queued = Task { try await session.send("AT+CGMI") }
        for expected in ["AT+CMEE?", "AT+CFUN?", "AT+CMEE?"] {
            #expect(try await modem.nextCommand() == expected)
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(1))
        }
        await #expect(throws: ATError.unresponsive(command: "AT+CGMI", port: "/dev/fake0", attempts: 3)) {
            try await queued.value
        }
        #expect(await session.isResynchronising)
    }

    @Test func unsolicitedOKWithNothingPendingNeverCompletesALaterCommand() async throws {
        let session = makeSession()
        modem.reply(bytes: Transcripts.bc95PowerOn)
        await diagnostics.first { $0 == .unsolicitedFinal(.ok) }
        let task = try await sendAndAwaitWrite(session, "AT+CGMI")
        #expect(modem.unreadHostBytes == 0)
        modem.reply("\r\nQuectel\r\n\r\nOK\r\n")
        #expect(try await task.value.lines == ["Quectel"])
        var urcs = session.urcs.makeAsyncIterator()
        #expect(await urcs.next()?.name == "REBOOT_CAUSE_")
        #expect(await urcs.next()?.line == "Neul")
    }

    // MARK: Prompts

    @Test func promptCommandWritesThePayloadOnlyAfterThePrompt() async throws {
        let session = makeSession()
        let payload = Array("0011000B916407281553F80000AA0AE8329BFD4697D9EC37".utf8) + [0x1A]
        let task = try await sendAndAwaitWrite(session, ATCommandRequest("AT+CMGS=23", payload: payload))
        #expect(modem.unreadHostBytes == 0)
        modem.reply("AT+CMGS=23\r\r\n> ")
        #expect(try await modem.nextBytes(payload.count) == payload)
        modem.reply("\r\n+CMGS: 12\r\n\r\nOK\r\n")
        #expect(try await task.value.values(for: "+CMGS") == ["12"])
    }

    @Test func saraAtPromptThenBinaryPayload() async throws {
        let session = makeSession()
        let payload: [UInt8] = [0x00, 0x0D, 0x0A, 0xFF]
        let task = try await sendAndAwaitWrite(
            session,
            ATCommandRequest("AT+USOST=0,\"10.0.0.1\",7,4", payload: payload, prompt: .at)
        )
        modem.reply("\r\n@")
        #expect(try await modem.nextBytes(4) == payload)
        modem.reply("\r\n+USOST: 0,4\r\n\r\nOK\r\n")
        #expect(try await task.value.lines == ["+USOST: 0,4"])
    }

    @Test func errorInsteadOfPromptFailsTheCommandWithoutSendingThePayload() async throws {
        let session = makeSession()
        let task = try await sendAndAwaitWrite(session, ATCommandRequest("AT+QISEND=0,5", payload: Array("hello".utf8)))
        modem.reply("\r\nERROR\r\n")
        await #expect(throws: ATError.self) { try await task.value }
        #expect(modem.unreadHostBytes == 0)
    }

    // MARK: Closing

    @Test func transportCloseFailsEveryQueuedAndInFlightCommandAtOnce() async throws {
        let session = makeSession()
        let inFlight = try await sendAndAwaitWrite(session, "AT+CGATT=1")
        let queued = [Task { try await session.send("AT+CGMI") }, Task { try await session.send("AT+CGMM") }]
        while await session.pendingCommandCount < 3 { await Task.yield() }
        modem.hangUp()
        await #expect(throws: ATError.transportClosed(command: "AT+CGATT=1", port: "/dev/fake0", reason: .endOfFile)) {
            try await inFlight.value
        }
        for task in queued {
            do {
                _ = try await task.value
                Issue.record("queued command succeeded after hang-up")
            } catch let error as ATError {
                guard case .transportClosed(let command?, "/dev/fake0", .endOfFile) = error else {
                    Issue.record("unexpected \(error)")
                    continue
                }
                #expect(["AT+CGMI", "AT+CGMM"].contains(command))
            }
        }
        var urcs = session.urcs.makeAsyncIterator()
        #expect(await urcs.next() == nil)
        await #expect(throws: ATError.transportClosed(command: "AT", port: "/dev/fake0", reason: .endOfFile)) {
            try await session.send("AT")
        }
        #expect(await session.isClosed)
    }

    @Test func closeFailsPendingCommandsAndClosesTheTransport() async throws {
        let session = makeSession()
        let inFlight = try await sendAndAwaitWrite(session, "AT+COPS=?")
        await session.close()
        await #expect(throws: ATError.sessionClosed(command: "AT+COPS=?", port: "/dev/fake0")) {
            try await inFlight.value
        }
        #expect(modem.closeCount >= 1)
    }
}
