extension ATSession {
    /// The in-flight command or probe `id` ran out of time.
    func timeoutFired(_ id: UInt64) {
        guard let flight = inFlight, flight.id == id else { return }
        switch flight.purpose {
        case .command(let queued):
            abandon(flight)
            diagnose(.timedOut(command: flight.command, after: flight.timeout))
            queued.continuation.resume(
                throwing: ATError.timeout(command: flight.command, port: portName, after: flight.timeout)
            )
        case .probe:
            finishInFlight()
            var state = desync ?? Desync(trigger: flight.command, unanswered: [])
            state.unanswered.append(Unanswered(command: flight.command, prefixes: flight.expectation.prefixes))
            state.consecutiveProbeTimeouts += 1
            diagnose(.probeTimedOut(command: flight.command, attempt: state.consecutiveProbeTimeouts))
            if state.consecutiveProbeTimeouts >= configuration.resync.maxAttempts {
                // The modem is not answering at all. Do not hold callers hostage: fail what is queued
                // now; the next send starts a fresh round of probes.
                let attempts = state.consecutiveProbeTimeouts
                state.consecutiveProbeTimeouts = 0
                let queued = queue
                queue.removeAll()
                for command in queued {
                    command.continuation.resume(
                        throwing: ATError.unresponsive(
                            command: command.request.command,
                            port: portName,
                            attempts: attempts
                        )
                    )
                }
            }
            desync = state
        }
        pump()
    }

    /// Ends the in-flight user command without an answer (timeout or cancellation); its final result
    /// may still come, so the session becomes desynchronised.
    func abandon(_ flight: InFlight) {
        finishInFlight()
        var state = desync ?? Desync(trigger: flight.command, unanswered: [])
        state.unanswered.append(Unanswered(command: flight.command, prefixes: flight.expectation.prefixes))
        desync = state
    }

    /// A final result while nothing is in flight (or read before the in-flight command was written).
    func unsolicitedFinalReceived(_ final: ATFinalResult) {
        guard var state = desync, !state.unanswered.isEmpty else {
            diagnose(.unsolicitedFinal(final))
            return
        }
        let owner = state.unanswered.removeFirst()
        diagnose(.lateFinal(command: owner.command, final: final))
        if state.unanswered.isEmpty && inFlight == nil {
            desync = nil
            diagnose(.resynchronised(afterCommand: state.trigger))
        } else {
            desync = state
        }
    }

    /// Writes the next resynchronisation probe.
    func startProbe() async {
        guard var state = desync else { return }
        let probes = configuration.resync.probes
        let busyNames = Set(state.unanswered.flatMap(\.prefixes))
        var probe = probes[state.probeRotation % probes.count]
        for offset in 0..<probes.count {
            let candidate = probes[(state.probeRotation + offset) % probes.count]
            if !busyNames.contains(candidate.signature) {
                probe = candidate
                break
            }
        }
        state.probeRotation += 1
        desync = state
        await start(
            .probe(probe),
            id: makeID(),
            command: probe.command,
            expectation: ATResponseExpectation(
                command: probe.command,
                prefixes: [probe.signature],
                allowsBareText: false
            ),
            awaitingPrompt: false,
            timeout: configuration.resync.timeout
        )
    }

    /// A final result while a probe is in flight.
    func probeFinalReceived(_ final: ATFinalResult, flight: InFlight) {
        if !flight.sawSignature, var state = desync, !state.unanswered.isEmpty {
            // Before the probe's signature: the answer of an older command.
            let owner = state.unanswered.removeFirst()
            desync = state
            diagnose(.lateFinal(command: owner.command, final: final))
            return
        }
        // After the signature (or with nothing older left unanswered): the probe's own final result.
        // Everything written before the probe has been answered or dropped.
        finishInFlight()
        let trigger = desync?.trigger ?? flight.command
        desync = nil
        diagnose(.resynchronised(afterCommand: trigger))
        pump()
    }
}
