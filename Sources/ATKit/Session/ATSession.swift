import Synchronization

/// Talks AT to one modem port: one command in flight, a FIFO queue behind it, a timeout per
/// command, and one ordered stream of unsolicited result codes.
///
/// ```swift
/// let session = ATSession(transport: try SerialPortTransport(path: "/dev/ttyUSB2"))
/// Task { for await urc in session.urcs { print(urc) } }
/// _ = try await session.send("ATE0")
/// let imei = try await session.send("AT+CGSN=1").values(for: "+CGSN").first
/// await session.close()
/// ```
///
/// **Life cycle.** The session starts reading as soon as it is created and owns the transport:
/// ``close()`` (or dropping the session) closes it. When the transport closes on its own (unplug),
/// every queued and in-flight command fails at once with ``ATError/transportClosed(command:port:reason:)``,
/// ``urcs`` finishes, and later sends fail immediately. A closed session is never reused; open a
/// new transport and session.
///
/// **Commands** (3GPP TS 27.007 §4.1): ``send(_:)`` queues the command; commands are written one at
/// a time in call order, each followed by CR, and at least ``ATSessionConfiguration/guardTime``
/// after the previous one ended. Information lines, URCs, echo and final results are told apart by
/// ``ATLineClassifier``. A prompt command (``ATCommandRequest/payload``) gets its payload written
/// when the prompt arrives. Cancelling the calling task withdraws a queued command, or abandons an
/// in-flight one like a timeout.
///
/// **Late final results.** A final result carries no command identity, so after a command times
/// out (or is cancelled in flight) the session is *desynchronised*: the abandoned command is
/// *unanswered* and may still produce a final result. The rule:
/// 1. While nothing is in flight, each final result is attributed to the oldest unanswered command
///    (reported as ``ATSessionDiagnostic/lateFinal(command:final:)``); when none is left unanswered
///    the session is synchronised again. A final result with nothing unanswered (BC95's boot `OK`)
///    is ignored: it never completes a later command.
/// 2. A new command is never written while desynchronised. First a *probe* is sent
///    (``ATResyncPolicy``, `AT+CMEE?` by default) whose answer carries a signature line (`+CMEE:`).
///    Modems answer in order, so a final result before the signature belongs to an unanswered
///    command, and the final result after it is the probe's: everything written before the probe
///    has then been answered or dropped, and the session is synchronised. (If nothing is
///    unanswered any more, a final result without signature is the probe's own, e.g. an `ERROR`.)
/// 3. A probe that times out becomes unanswered itself; probes rotate so that the next one's
///    signature differs from every unanswered command's. After
///    ``ATResyncPolicy/maxAttempts`` consecutive probe timeouts the queued commands fail with
///    ``ATError/unresponsive(command:port:attempts:)``; the next send probes again.
///
/// Bytes that were read before a command was written are classified as if nothing were in flight
/// (the modem cannot answer a command it has not received), which closes the window in which a
/// boot `OK` already read but not yet processed could complete a freshly written command. The
/// remaining blind spot is inherent to AT: a final result emitted while our command's bytes are on
/// the wire is indistinguishable from its answer.
///
/// **Isolation.** All mutable state below is owned by the actor. The reader task only calls
/// ``ATTransport/read()`` and hands chunks to the actor in order; timeout tasks only call back
/// into the actor with the id of the command they guard, which is ignored if stale.
public actor ATSession {
    struct QueuedCommand {
        let id: UInt64
        let request: ATCommandRequest
        let continuation: CheckedContinuation<ATResponse, any Error>
    }

    enum Purpose {
        case command(QueuedCommand)
        case probe(ATResyncProbe)
    }

    struct InFlight {
        let id: UInt64
        let purpose: Purpose
        let command: String
        var expectation: ATResponseExpectation
        /// Value of `writeSequence` for this command: bytes stamped lower were read before it was written.
        let writeSequence: UInt64
        let timeout: Duration
        var lines: [String] = []
        var awaitingPrompt: Bool
        var sawSignature = false
        var timeoutTask: Task<Void, Never>?
    }

    struct Unanswered {
        let command: String
        let prefixes: [String]
    }

    struct Desync {
        /// The command whose timeout started this episode (for diagnostics).
        let trigger: String
        /// Commands written but not answered, oldest first.
        var unanswered: [Unanswered]
        var consecutiveProbeTimeouts = 0
        var probeRotation = 0
    }

    enum Closure {
        case local
        case transport(ATTransportError.CloseReason)
    }

    /// The transport's port name, used in every error.
    public nonisolated let portName: String

    /// Unsolicited result codes in the order they arrived, including those that arrived in the
    /// middle of a response. Finishes when the session closes. Meant for one consumer; at most
    /// ``ATSessionConfiguration/urcBufferLimit`` undelivered URCs are kept.
    public nonisolated let urcs: AsyncStream<ATURC>

    nonisolated let urcContinuation: AsyncStream<ATURC>.Continuation
    let transport: any ATTransport
    let configuration: ATSessionConfiguration
    let clock: ATSessionClock
    let classifier: ATLineClassifier
    /// Incremented before each write; read by the reader task to stamp chunks (see `InFlight`).
    nonisolated let writeSequence = Mutex<UInt64>(0)

    var framer: ATLineFramer
    var queue: [QueuedCommand] = []
    var inFlight: InFlight?
    var isDispatching = false
    var desync: Desync?
    var closure: Closure?
    var collectingURC: (urc: ATURC, remaining: Int)?
    var sinceLastCompletion: (@Sendable () -> Duration)?
    var nextID: UInt64 = 0

    /// Creates a session and starts reading `transport`.
    ///
    /// - Parameters:
    ///   - transport: the port; the session owns it from now on.
    ///   - configuration: timeouts, guard time, URC table.
    ///   - clock: the clock for timeouts and guard time; tests inject a manual clock.
    public init(
        transport: any ATTransport,
        configuration: ATSessionConfiguration = ATSessionConfiguration(),
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.portName = transport.portName
        self.transport = transport
        self.configuration = configuration
        self.clock = ATSessionClock(clock)
        self.classifier = ATLineClassifier(urcTable: configuration.urcTable)
        self.framer = ATLineFramer(maxLineLength: configuration.maxLineLength, prompts: [])
        (self.urcs, self.urcContinuation) = AsyncStream.makeStream(
            of: ATURC.self,
            bufferingPolicy: .bufferingNewest(max(1, configuration.urcBufferLimit))
        )
        Self.startReader(for: self, transport: transport)
    }

    deinit {
        urcContinuation.finish()
        let transport = self.transport
        Task { await transport.close() }
    }

    /// The reader: reads chunks and hands them to the session in order. It holds the session weakly
    /// so that dropping the session closes the port.
    private nonisolated static func startReader(for session: ATSession, transport: any ATTransport) {
        Task { [weak session] in
            while true {
                let bytes: [UInt8]
                do {
                    bytes = try await transport.read()
                } catch {
                    await session?.transportFailed(error)
                    return
                }
                guard let session else {
                    await transport.close()
                    return
                }
                let stamp = session.writeSequence.withLock { $0 }
                await session.ingest(bytes, stamp: stamp)
            }
        }
    }

    // MARK: Public API

    /// Queues `request`, waits for its turn, writes it and returns its response.
    ///
    /// - Returns: the information lines and the final result when the final result is a success
    ///   (`OK`, `CONNECT`, `SEND OK`).
    /// - Throws: ``ATError/commandFailed(command:port:final:lines:)`` for `ERROR`, `+CME ERROR`
    ///   (3GPP TS 27.007 §9.2) and other failure codes; ``ATError/timeout(command:port:after:)``;
    ///   ``ATError/transportClosed(command:port:reason:)`` / ``ATError/sessionClosed(command:port:)``;
    ///   ``ATError/unresponsive(command:port:attempts:)``; ``ATError/invalidCommand(command:reason:)``;
    ///   `CancellationError` when the calling task is cancelled.
    public func send(_ request: ATCommandRequest) async throws -> ATResponse {
        try request.validate()
        if let closure {
            throw error(for: closure, command: request.command)
        }
        try Task.checkCancellation()
        let id = makeID()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                queue.append(QueuedCommand(id: id, request: request, continuation: continuation))
                pump()
            }
        } onCancel: {
            Task { await self.cancel(id) }
        }
    }

    /// Sends `command` with an optional timeout; see ``send(_:)``.
    public func send(_ command: String, timeout: Duration? = nil) async throws -> ATResponse {
        try await send(ATCommandRequest(command, timeout: timeout))
    }

    /// Fails every queued and in-flight command with ``ATError/sessionClosed(command:port:)``,
    /// finishes ``urcs`` and closes the transport. Returns once the transport is closed.
    public func close() async {
        shutDown(.local)
        await transport.close()
    }

    /// Commands queued or in flight (probes excluded).
    public var pendingCommandCount: Int {
        queue.count + (inFlight.map { if case .command = $0.purpose { 1 } else { 0 } } ?? 0)
    }

    /// Whether the session has closed.
    public var isClosed: Bool { closure != nil }

    /// Whether a timed-out command may still answer (see the type documentation).
    public var isResynchronising: Bool { desync != nil }

    // MARK: Queue

    func makeID() -> UInt64 {
        nextID &+= 1
        return nextID
    }

    /// Starts the dispatcher if a command can be written now.
    func pump() {
        guard closure == nil, !isDispatching, inFlight == nil, !queue.isEmpty else { return }
        isDispatching = true
        Task { await self.dispatch() }
    }

    private func dispatch() async {
        await dispatchNext()
        isDispatching = false
        pump()
    }

    private func dispatchNext() async {
        // Guard time since the previous command ended; see ATSessionConfiguration.guardTime.
        if configuration.guardTime > .zero, let elapsed = sinceLastCompletion {
            let remaining = configuration.guardTime - elapsed()
            if remaining > .zero {
                try? await clock.sleep(remaining)
            }
        }
        guard closure == nil, inFlight == nil, let next = queue.first else { return }
        if desync != nil {
            await startProbe()
            return
        }
        queue.removeFirst()
        await start(
            .command(next),
            id: next.id,
            command: next.request.command,
            expectation: next.request.expectation,
            awaitingPrompt: next.request.payload != nil,
            timeout: next.request.timeout ?? configuration.defaultTimeout
        )
    }

    /// Makes `purpose` the in-flight command, arms its timeout and writes it.
    func start(
        _ purpose: Purpose,
        id: UInt64,
        command: String,
        expectation: ATResponseExpectation,
        awaitingPrompt: Bool,
        timeout: Duration
    ) async {
        let sequence = writeSequence.withLock { value in
            value += 1
            return value
        }
        var flight = InFlight(
            id: id,
            purpose: purpose,
            command: command,
            expectation: expectation,
            writeSequence: sequence,
            timeout: timeout,
            awaitingPrompt: awaitingPrompt
        )
        // Arm only the prompt this command waits for, so ordinary lines starting with "@" or "> "
        // are never cut short.
        framer.prompts = expectation.prompt.map { [$0] } ?? []
        let clock = self.clock
        flight.timeoutTask = Task { [weak self] in
            do {
                try await clock.sleep(timeout)
            } catch {
                return  // cancelled: the command ended first
            }
            await self?.timeoutFired(id)
        }
        inFlight = flight
        do {
            try await transport.write(Array((command + "\r").utf8))
        } catch {
            await transportFailed(error)
        }
    }

    /// Ends the in-flight command: stops its timer, disarms prompts, starts the guard time.
    @discardableResult
    func finishInFlight() -> InFlight? {
        guard let flight = inFlight else { return nil }
        flight.timeoutTask?.cancel()
        inFlight = nil
        framer.prompts = []
        sinceLastCompletion = clock.startStopwatch()
        return flight
    }

    private func cancel(_ id: UInt64) {
        if let index = queue.firstIndex(where: { $0.id == id }) {
            queue.remove(at: index).continuation.resume(throwing: CancellationError())
            return
        }
        guard let flight = inFlight, flight.id == id, case .command(let queued) = flight.purpose else { return }
        abandon(flight)
        queued.continuation.resume(throwing: CancellationError())
        pump()
    }

    // MARK: Closing

    /// Marks the session closed and fails everything pending. Returns false if it already was.
    @discardableResult
    func shutDown(_ reason: Closure) -> Bool {
        guard closure == nil else { return false }
        closure = reason
        let flight = inFlight
        flight?.timeoutTask?.cancel()
        inFlight = nil
        let queued = queue
        queue.removeAll()
        if let flight, case .command(let command) = flight.purpose {
            command.continuation.resume(throwing: error(for: reason, command: command.request.command))
        }
        for command in queued {
            command.continuation.resume(throwing: error(for: reason, command: command.request.command))
        }
        if let collecting = collectingURC {
            collectingURC = nil
            deliver(collecting.urc)
        }
        urcContinuation.finish()
        return true
    }

    func transportFailed(_ failure: any Error) async {
        let reason: ATTransportError.CloseReason =
            if case .closed(_, let reason)? = failure as? ATTransportError {
                reason
            } else {
                .failed(String(describing: failure))
            }
        if shutDown(.transport(reason)) {
            await transport.close()
        }
    }

    func error(for closure: Closure, command: String?) -> ATError {
        switch closure {
        case .local: .sessionClosed(command: command, port: portName)
        case .transport(let reason): .transportClosed(command: command, port: portName, reason: reason)
        }
    }

    func diagnose(_ diagnostic: ATSessionDiagnostic) {
        configuration.diagnostics?(diagnostic)
    }
}
