extension ModemProbe {
    /// What waking a port at one speed gave.
    enum WakeOutcome: Sendable, Equatable {
        /// A final result arrived: something speaks AT at this speed.
        case answered
        /// No final result; `sawBytes` when anything at all arrived.
        case silent(sawBytes: Bool)
    }

    /// What one bounded read gave.
    enum ReadOutcome: Sendable {
        case bytes([UInt8])
        case timedOut
        case closed(ATTransportError.CloseReason)
    }

    /// Sends `AT` up to ``ModemProbeOptions/wakeAttempts`` times, each waiting
    /// ``ModemProbeOptions/wakeTimeout`` for a final result (any: a recognised `ERROR` proves the
    /// port speaks AT as well as an `OK`, as ModemManager's port probe holds).
    ///
    /// When more than one `AT` went out, the answer seen may belong to an earlier one and a later
    /// one may still answer; its `OK` must not complete the session's first command. So the port
    /// is synchronised on a command with a signature line (`AT+CMEE?` → `+CMEE: <n>`): whatever
    /// comes before the signature belongs to the extra `AT`s.
    func wake(_ transport: any ATTransport) async throws(ModemProbeError) -> WakeOutcome {
        var framer = ATLineFramer(prompts: [])
        var sawBytes = false
        var answered = false
        var sent = 0
        attempts: for _ in 0..<options.wakeAttempts {
            try await write("AT\r", to: transport, command: "AT")
            sent += 1
            let elapsed = timer.startStopwatch()
            while true {
                let remaining = options.wakeTimeout - elapsed()
                guard remaining > .zero else { break }
                switch await read(transport, within: remaining) {
                case .bytes(let bytes):
                    sawBytes = true
                    if Self.lines(framer.feed(bytes)).contains(where: { ATFinalResult(line: $0) != nil }) {
                        answered = true
                        break attempts
                    }
                case .timedOut:
                    continue attempts
                case .closed(let reason):
                    throw .portClosed(port: transport.portName, command: "AT", reason: reason)
                }
            }
        }
        guard answered else { return .silent(sawBytes: sawBytes) }
        if sent > 1 {
            try await synchronise(transport, framer: &framer)
        }
        return .answered
    }

    /// Sends `AT+CMEE?` and reads until its `+CMEE:` line and the final result after it (bounded
    /// by the wake timeout; a module without `+CMEE` simply runs out the clock once).
    private func synchronise(_ transport: any ATTransport, framer: inout ATLineFramer) async throws(ModemProbeError) {
        try await write("AT+CMEE?\r", to: transport, command: "AT+CMEE?")
        var sawSignature = false
        let elapsed = timer.startStopwatch()
        while true {
            let remaining = options.wakeTimeout - elapsed()
            guard remaining > .zero else { return }
            switch await read(transport, within: remaining) {
            case .bytes(let bytes):
                for line in Self.lines(framer.feed(bytes)) {
                    if line.hasPrefix("+CMEE") {
                        sawSignature = true
                    } else if sawSignature, ATFinalResult(line: line) != nil {
                        return
                    }
                }
            case .timedOut:
                return
            case .closed(let reason):
                throw .portClosed(port: transport.portName, command: "AT+CMEE?", reason: reason)
            }
        }
    }

    private func write(_ text: String, to transport: any ATTransport, command: String) async throws(ModemProbeError) {
        do {
            try await transport.write(Array(text.utf8))
        } catch {
            throw .portClosed(port: transport.portName, command: command, reason: Self.closeReason(error))
        }
    }

    /// Reads with a deadline. A read that loses the race is cancelled; bytes it still returned are
    /// kept, so nothing is lost between the wake phase and the session.
    func read(_ transport: any ATTransport, within timeout: Duration) async -> ReadOutcome {
        let timer = self.timer
        return await withTaskGroup(of: ReadOutcome.self) { group in
            group.addTask {
                do {
                    return .bytes(try await transport.read())
                } catch is CancellationError {
                    return .timedOut
                } catch {
                    return .closed(ModemProbe.closeReason(error))
                }
            }
            group.addTask {
                try? await timer.sleep(timeout)
                return .timedOut
            }
            var bytes: [UInt8] = []
            var closed: ATTransportError.CloseReason?
            var first = true
            for await outcome in group {
                if first {
                    // Whichever finished first, stop the other; its result is still merged.
                    group.cancelAll()
                    first = false
                }
                Self.merge(outcome, into: &bytes, closed: &closed)
            }
            if !bytes.isEmpty { return .bytes(bytes) }
            if let closed { return .closed(closed) }
            return .timedOut
        }
    }

    private static func merge(
        _ outcome: ReadOutcome,
        into bytes: inout [UInt8],
        closed: inout ATTransportError.CloseReason?
    ) {
        switch outcome {
        case .bytes(let more): bytes += more
        case .closed(let reason): closed = reason
        case .timedOut: break
        }
    }

    static func lines(_ events: [ATLineFramer.Event]) -> [String] {
        events.compactMap { event in
            if case .line(let line) = event { line.text.trimmingSpaces() } else { nil }
        }
    }

    static func closeReason(_ error: any Error) -> ATTransportError.CloseReason {
        if case .closed(_, let reason)? = error as? ATTransportError { return reason }
        if case .transportClosed(_, _, let reason)? = error as? ATError { return reason }
        return .failed(String(describing: error))
    }
}
