extension ATSession {
    /// Frames `bytes` and routes every event. Bytes are fed one at a time because routing an event
    /// can re-arm the framer's prompts (a command ends, the next byte belongs to no prompt).
    ///
    /// `stamp` is the write sequence observed when the chunk was read: a chunk stamped below the
    /// in-flight command's sequence was read before that command was written.
    func ingest(_ bytes: [UInt8], stamp: UInt64) async {
        var events: [ATLineFramer.Event] = []
        for byte in bytes {
            guard closure == nil else { return }
            framer.feed(byte, into: &events)
            guard !events.isEmpty else { continue }
            let completed = events
            events.removeAll(keepingCapacity: true)
            for event in completed {
                await route(event, stamp: stamp)
            }
        }
    }

    private func route(_ event: ATLineFramer.Event, stamp: UInt64) async {
        switch event {
        case .prompt(let prompt):
            await promptReceived(prompt, stamp: stamp)
        case .line(let line):
            if line.isTruncated {
                diagnose(.truncatedLine(line))
            }
            if var collecting = collectingURC {
                // Trailing lines of a multi-line URC (+CMT header, then the message).
                collecting.urc.trailingLines.append(line.text.trimmingSpaces())
                collecting.remaining -= 1
                if collecting.remaining == 0 {
                    collectingURC = nil
                    deliver(collecting.urc)
                } else {
                    collectingURC = collecting
                }
                return
            }
            await classifyAndRoute(line.text, stamp: stamp)
        }
    }

    private func classifyAndRoute(_ text: String, stamp: UInt64) async {
        let current = inFlight.flatMap { stamp >= $0.writeSequence ? $0 : nil }
        switch classifier.classify(text, pending: current?.expectation) {
        case .echo:
            break
        case .prompt(let prompt):
            await promptReceived(prompt, stamp: stamp)
        case .final(let final):
            finalReceived(final)
        case .information(let line):
            informationReceived(line)
        case .urc(let urc):
            urcReceived(urc)
        case .unsolicitedFinal(let final):
            unsolicitedFinalReceived(final)
        case .unsolicitedText(let line):
            if !line.isEmpty {
                diagnose(.unsolicitedText(line))
            }
        }
    }

    private func promptReceived(_ prompt: ATPrompt, stamp: UInt64) async {
        guard var flight = inFlight, stamp >= flight.writeSequence, flight.awaitingPrompt,
            case .command(let queued) = flight.purpose, let payload = queued.request.payload
        else { return }
        flight.awaitingPrompt = false
        flight.expectation.prompt = nil
        inFlight = flight
        framer.prompts = []
        do {
            try await transport.write(payload)
        } catch {
            await transportFailed(error)
        }
    }

    private func informationReceived(_ line: String) {
        guard var flight = inFlight else { return }
        if case .probe(let probe) = flight.purpose {
            if ATLineClassifier.resultName(of: line) == probe.signature {
                flight.sawSignature = true
            } else if let desync, let owner = desync.unanswered.first {
                diagnose(.lateLine(command: owner.command, line: line))
            }
        } else {
            flight.lines.append(line)
        }
        inFlight = flight
    }

    private func finalReceived(_ final: ATFinalResult) {
        guard let flight = inFlight else { return }
        switch flight.purpose {
        case .command(let queued):
            finishInFlight()
            if final.isSuccess {
                queued.continuation.resume(
                    returning: ATResponse(command: flight.command, lines: flight.lines, final: final)
                )
            } else {
                queued.continuation.resume(
                    throwing: ATError.commandFailed(
                        command: flight.command,
                        port: portName,
                        final: final,
                        lines: flight.lines
                    )
                )
            }
            pump()
        case .probe:
            probeFinalReceived(final, flight: flight)
        }
    }

    private func urcReceived(_ urc: ATURC) {
        // A late information line of a timed-out command (`+CSQ: ...` after AT+CSQ gave up) is not a
        // URC: swallow it rather than publish it.
        if !urc.isRecognised, let desync, inFlight.map({ if case .probe = $0.purpose { true } else { false } }) ?? true,
            let owner = desync.unanswered.first(where: { $0.prefixes.contains(urc.name) })
        {
            diagnose(.lateLine(command: owner.command, line: urc.line))
            return
        }
        if urc.isRecognised, let trailing = classifier.urcTable.match(urc.line)?.trailingLineCount, trailing > 0 {
            collectingURC = (urc, trailing)
            return
        }
        deliver(urc)
    }

    func deliver(_ urc: ATURC) {
        if case .dropped(let dropped) = urcContinuation.yield(urc) {
            diagnose(.urcDropped(dropped))
        }
    }
}
