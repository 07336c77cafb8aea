extension ModemBringUp {
    /// Waits until the module is registered (home or roaming), with a deadline on the injected
    /// clock.
    ///
    /// Registration normally arrives as a `+CEREG` URC (levels 1–5); the module is also polled
    /// with `AT+CEREG?` right away and every `pollInterval`, because URCs can be routed to
    /// another port (BG9x `AT+QURCCFG`) or lost while the host was not reading.
    ///
    /// - Returns: the registered status (with PSM timers at level 4/5).
    /// - Throws: ``ModemBringUpError/registrationDenied(_:port:)`` on `<stat>` 3,
    ///   ``ModemBringUpError/rebooted(marker:port:)`` when a boot banner arrives,
    ///   ``ModemBringUpError/registrationTimedOut(last:after:port:)`` at the deadline,
    ///   ``ModemBringUpError/sessionEnded(port:)`` when the session closes.
    public func waitForRegistration(
        events hub: ModemEventHub,
        within deadline: Duration,
        pollInterval: Duration = .seconds(30)
    ) async throws -> RegistrationStatus {
        let subscription = hub.subscribe()
        let port = self.port
        if let status = try? await session.send(CEREG.Read()), let verdict = try Self.verdict(status, port: port) {
            return verdict
        }
        let session = self.session
        let timer = self.timer
        return try await withThrowingTaskGroup(of: RegistrationStatus?.self) { group in
            group.addTask {
                for await event in subscription {
                    switch event {
                    case .registration(let status):
                        if let verdict = try Self.verdict(status, port: port) { return verdict }
                    case .rebooted(let marker):
                        throw ModemBringUpError.rebooted(marker: marker, port: port)
                    default:
                        continue
                    }
                }
                if Task.isCancelled { return nil }
                throw ModemBringUpError.sessionEnded(port: port)
            }
            group.addTask {
                while true {
                    try await timer.sleep(pollInterval)
                    if let status = try? await session.send(CEREG.Read()),
                        let verdict = try Self.verdict(status, port: port)
                    {
                        return verdict
                    }
                }
            }
            group.addTask {
                try await timer.sleep(deadline)
                return nil
            }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                if let status = result { return status }
                break
            }
            throw ModemBringUpError.registrationTimedOut(last: hub.latestRegistration, after: deadline, port: port)
        }
    }

    /// The status if it ends the wait (registered), nil to keep waiting; throws on denial.
    static func verdict(_ status: RegistrationStatus, port: String) throws -> RegistrationStatus? {
        if status.isRegistered { return status }
        if status.state == .denied { throw ModemBringUpError.registrationDenied(status, port: port) }
        return nil
    }

    /// Reboots the module with the dialect's command and waits until it answers `AT` again;
    /// returns the boot marker seen, if any. Volatile settings are lost: run ``apply(_:)`` again.
    ///
    /// Why wait for a marker *and* `AT`: BC95 answers `AT+NRB` only after its banner, BG9x answers
    /// `AT+CFUN=1,1` first and prints `RDY` seconds later, SARA-R4 prints nothing at all.
    @discardableResult
    public func reboot(events hub: ModemEventHub, within deadline: Duration = .seconds(60)) async throws -> String? {
        guard let command = dialect.rebootCommand else {
            throw ModemBringUpError.unsupported(what: "reboot itself over AT", dialect: dialect.name, port: port)
        }
        let subscription = hub.subscribe()
        _ = try? await session.send(command)
        let timer = self.timer
        let port = self.port
        let marker: String? = try await withThrowingTaskGroup(of: String?.self) { group in
            group.addTask {
                for await event in subscription {
                    if case .rebooted(let marker) = event { return marker }
                }
                return nil
            }
            group.addTask {
                try await timer.sleep(deadline)
                throw ModemBringUpError.rebootTimedOut(after: deadline, port: port)
            }
            defer { group.cancelAll() }
            // Families without a banner (SARA-R4) go straight to polling AT. For the others the
            // marker is in the subscription's buffer even if it came before the command's answer.
            if dialect.bootMarkers.isEmpty { return nil }
            return try await group.next() ?? nil
        }
        let elapsed = timer.startStopwatch()
        while elapsed() < deadline {
            if (try? await session.send(ATCommandRequest("AT", timeout: .seconds(1)))) != nil {
                return marker
            }
        }
        throw ModemBringUpError.rebootTimedOut(after: deadline, port: port)
    }
}
