import ATKit
import DeviceIdentity
import Foundation
import Registry

extension ModemSupervisor {
    /// Waits until the module's SIM can be used, and returns the identity with the SIM's IMSI and
    /// ICCID (read again when the SIM was not usable at first: a SIM inserted later is another SIM).
    ///
    /// `AT+CPIN?` (3GPP TS 27.007 §8.3), or the CME error it fails with (§9.2.1), says where it is:
    ///
    /// | SIM | state, reason | the supervisor then |
    /// |---|---|---|
    /// | `READY` (or no answer that says otherwise) | — | goes on with the bring-up |
    /// | `+CME ERROR: 10`, `NOT INSERTED` | `waiting`, `SIM_ABSENT` | waits for a SIM |
    /// | `+CME ERROR: 13`/`15` | `waiting`, `SIM_FAILURE` | waits for a working SIM |
    /// | `+CME ERROR: 14`, `NOT READY` | `waiting`, `SIM_BUSY` | asks again in 2 s |
    /// | `SIM PIN` with a configured PIN | — | enters it once (``enterConfiguredPIN(session:identity:)``) |
    /// | `SIM PIN` without one | `locked`, `SIM_PIN_REQUIRED` | waits for the config to give one |
    /// | `SIM PUK` | `locked`, `SIM_PUK_REQUIRED` | waits: nbgw never enters a PUK |
    /// | another code (`PH-SIM PIN`…) | `locked`, `SIM_LOCKED` | waits |
    ///
    /// Waiting means: the session stays open (operators' commands work), and the SIM is asked again
    /// when a SIM URC arrives (`+CPIN:`, ``ModemEvent/simStatusURCNames``), every
    /// ``GatewayConfiguration/simPollInterval``, and when the daemon reloads its SIM PINs.
    func awaitUsableSIM(
        session: ATSession,
        hub: ModemEventHub,
        identity: ModemRecord.Identity
    ) async throws -> ModemRecord.Identity {
        var shown: ModemReason?
        while true {
            try Task.checkCancellation()
            let events = hub.subscribe()
            let pinsVersion = context.simPINs.version
            let sim = try await readSIM(session)
            let reason: ModemReason
            switch sim {
            case nil, .ready?:
                guard shown != nil else { return identity }
                log(.info, "the SIM is ready")
                return await identityWithSIM(session: session, identity: identity)
            case .busy?:
                reason = ModemReason(.simBusy, "\(moduleName): the SIM is still initialising (+CPIN: NOT READY)")
            case .notInserted?:
                reason = ModemReason(
                    .simAbsent,
                    "\(moduleName): no SIM (AT+CPIN? answered SIM not inserted); insert one, the gateway notices it"
                )
            case .failure?:
                reason = ModemReason(
                    .simFailure,
                    "\(moduleName): the SIM does not work (SIM failure or wrong SIM); re-seat or replace it"
                )
            case .locked(let code)?:
                if code.uppercased() == "SIM PIN" {
                    guard let refusal = try await enterConfiguredPIN(session: session, identity: identity) else {
                        // Entered: read the SIM again at once (it may be busy for a moment).
                        continue
                    }
                    reason = refusal
                } else if code.uppercased() == "SIM PUK" {
                    reason = ModemReason(
                        .simPUKRequired,
                        "\(moduleName): the SIM is blocked behind its PUK (+CPIN: SIM PUK); nbgw never enters a PUK"
                    )
                } else {
                    reason = ModemReason(.simLocked, "\(moduleName): the SIM or module wants \(code) (+CPIN: \(code))")
                }
            }
            if reason != shown {
                await transition(to: ModemReasonCode(rawValue: reason.code)?.state ?? .waiting, reason: reason)
                shown = reason
            }
            let interval = sim == .busy ? .seconds(2) : configuration.simPollInterval
            let wake = await waitForChange(
                events,
                timeout: interval,
                pinsSince: reason.code == ModemReasonCode.simPINRequired.rawValue
                    || reason.code == ModemReasonCode.simPINRejected.rawValue ? pinsVersion : nil
            ) { event in
                switch event {
                case .sim, .simStatus, .rebooted: true
                default: false
                }
            }
            switch wake {
            case .event(.rebooted(let marker)):
                throw ModemBringUpError.rebooted(marker: marker, port: path)
            case .ended:
                throw ModemBringUpError.sessionEnded(port: path)
            case .cancelled:
                throw CancellationError()
            case .event, .tick, .pins:
                continue
            }
        }
    }

    /// `AT+CPIN?` as a ``SIMState``: the answer, or the state its CME error gives away; nil when
    /// the answer says nothing about the SIM (a plain `ERROR`, an unknown CME code, a parse error).
    /// Throws what ends the session.
    func readSIM(_ session: ATSession) async throws -> SIMState? {
        do {
            return try await session.send(CPIN.Read())
        } catch let error as ATError {
            switch error {
            case .commandFailed(_, _, let final, _):
                return SIMState(error: final)
            case .timeout, .invalidCommand:
                return nil
            case .transportClosed, .sessionClosed, .unresponsive:
                throw error
            }
        } catch is ATResponseParseError {
            return nil
        }
    }

    /// Enters the PIN the config gives for this SIM, once: nil when the SIM took it; otherwise the
    /// reason the module stays `locked` (no PIN configured, the configured one refused now or
    /// before, one attempt left).
    ///
    /// The PIN never reaches a log, an error message or the audit log: the command's text and its
    /// ``ATError`` (which quotes the command) are never printed; the store keeps only the SHA-256
    /// of a PIN the SIM refused, so that PIN is never entered again (``SIMPINBook/pinDigest(subject:pin:)``).
    func enterConfiguredPIN(session: ATSession, identity: ModemRecord.Identity) async throws -> ModemReason? {
        let imei = identity.imei
        guard let entry = context.simPINs.book.entry(iccid: identity.iccid, imei: imei) else {
            let sim =
                identity.iccid.map { "ICCID \($0)" } ?? "the SIM of IMEI \(imei) (its ICCID is unreadable while locked)"
            return ModemReason(
                .simPINRequired,
                "\(moduleName): the SIM wants its PIN and the config has none for \(sim); add [[sim]] "
                    + (identity.iccid.map { "iccid = \"\($0)\"" } ?? "imei = \"\(imei)\"")
                    + " pin = \"…\" and run `systemctl reload nbgwd`"
            )
        }
        let subject = SIMPINBook.subject(iccid: identity.iccid, imei: imei)
        let digest = SIMPINBook.pinDigest(subject: subject, pin: entry.pin)
        if let refused = try? context.registry.modems.simPINRejection(subject: subject, pinDigest: digest) {
            return ModemReason(
                .simPINRejected,
                "\(moduleName): the configured \(entry) was refused by the SIM on \(refused.formatted(.iso8601)) and "
                    + "is not entered again; put the right PIN in the config and `systemctl reload nbgwd`"
            )
        }
        let retries = try? await session.send(CPINR.Read("SIM PIN"))
        if let retries, retries.remaining <= 1 {
            return ModemReason(
                .simPINLastAttempt,
                "\(moduleName): the SIM has \(retries.remaining) PIN attempt\(retries.remaining == 1 ? "" : "s") "
                    + "left (AT+CPINR); nbgw does not risk it: enter the PIN by hand"
            )
        }
        let command: CPIN.Enter
        do {
            command = try CPIN.Enter(pin: entry.pin)
        } catch {
            return ModemReason(
                .simPINRejected,
                "\(moduleName): the configured \(entry) is not 4 to 8 digits; fix it in the config"
            )
        }
        let deviceID = status.withLock { $0.deviceID }
        do {
            try await session.send(command)
            log(.notice, "entered the configured \(entry)")
            try? await context.registry.modems.recordSIMPINEntry(
                imei: imei,
                deviceID: deviceID,
                code: "OK",
                detail: "\(entry)"
            )
            return nil
        } catch let error as ATError {
            let outcome: String
            switch error {
            case .commandFailed(_, _, let final, _): outcome = final.description
            case .timeout(_, _, let after): outcome = "no answer within \(after)"
            case .transportClosed, .sessionClosed, .unresponsive, .invalidCommand: throw error
            }
            // Whatever the outcome, if the SIM still wants a PIN this one is not entered again.
            if case .locked? = try await readSIM(session) {
                try? await context.registry.modems.recordSIMPINRejection(subject: subject, pinDigest: digest)
            }
            try? await context.registry.modems.recordSIMPINEntry(
                imei: imei,
                deviceID: deviceID,
                code: outcome,
                detail: "\(entry)"
            )
            let left = (try? await session.send(CPINR.Read("SIM PIN"))).map {
                " (\($0.remaining) attempt\($0.remaining == 1 ? "" : "s") left)"
            }
            log(.warning, "the SIM refused the configured \(entry): \(outcome)\(left ?? "")")
            return ModemReason(
                .simPINRejected,
                "\(moduleName): the SIM refused the configured \(entry) (\(outcome))\(left ?? ""); it is not entered "
                    + "again: put the right PIN in the config and `systemctl reload nbgwd`"
            )
        }
    }

    /// The identity with the IMSI and ICCID of the SIM now in the module, recorded in the store
    /// (the row goes `configuring`). What cannot be read stays as it was.
    func identityWithSIM(session: ATSession, identity: ModemRecord.Identity) async -> ModemRecord.Identity {
        var identity = identity
        if let imsi = try? await session.send(CIMI()), let valid = try? IMSI(imsi).digits {
            identity.imsi = valid
        }
        if let live = entry.live.current {
            for query in live.dialect.iccidQueries {
                if let iccid = try? await session.send(query), let valid = try? ICCID(iccid).value {
                    identity.iccid = valid
                    break
                }
            }
        }
        do {
            _ = try await context.registry.modems.recordIdentity(
                port: path,
                identity,
                state: ModemState.configuring.rawValue
            )
        } catch {
            log(.warning, "cannot record the SIM's IMSI and ICCID in the store: \(error)")
        }
        return identity
    }
}
