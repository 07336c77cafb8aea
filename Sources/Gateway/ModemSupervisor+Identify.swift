import ATKit
import Foundation
import Registry
import Synchronization

extension ModemSupervisor {
    /// The directory's answer when this port claims an IMEI.
    enum IMEIClaim: Sendable, Equatable {
        /// This port is the module's AT port (now, or already since an earlier attempt).
        case granted
        /// Another live port is the module's AT port: this one is a secondary interface.
        case heldBy(port: String)
        /// The holder's node is gone but its supervisor has not noticed yet: it has been told to
        /// stop, and this port retries after the backoff.
        case heldByGone(port: String)
    }

    /// What the probe of one attempt identified, and what the claim of its IMEI gave.
    struct Identified: Sendable {
        var imei: String
        var claim: IMEIClaim
    }

    /// Where the probe's callback leaves what it identified, for the attempt to read once the probe
    /// is over (an object: the callback is an escaping closure, which cannot capture a `Mutex`).
    final class IdentifiedSlot: Sendable {
        let value = Mutex<Identified?>(nil)
    }

    /// The probe of one attempt, claiming and recording the module as soon as its IMEI is read.
    ///
    /// The probe calls ``ModemProbeOptions/onIdentified`` on its own task right after `+CGSN`,
    /// about 0.17 s into a 0.6 s probe. The claim is synchronous there (the directory's lock), so
    /// a secondary interface stops its probe at once; the store write is not: the probe's task
    /// hands the identification over a stream to this task, which records the IMEI in the modem
    /// table while the probe reads SIM, registration, signal and operator. The write is awaited
    /// before this returns, so whatever the attempt writes next (the full identity, or the
    /// failure) lands after it.
    ///
    /// - Returns: the probe's result, and what was identified and claimed (nil when the probe
    ///   read no valid IMEI, or ended before it).
    func probeClaimingEarly() async -> (Result<ModemProbeReport, ModemProbeError>, Identified?) {
        let identified = IdentifiedSlot()
        let (identifications, sink) = AsyncStream.makeStream(
            of: ModemIdentification.self,
            bufferingPolicy: .unbounded
        )
        var options = probeOptions
        options.onIdentified = { identification in
            let claim = self.claim(imei: identification.imei)
            identified.value.withLock { $0 = Identified(imei: identification.imei, claim: claim) }
            guard claim == .granted else { return .stop }
            sink.yield(identification)
            return .proceed
        }
        let probe = self.probe(options: options)
        async let probed = Self.run(probe, port: path, finishing: sink)
        // Ends when the probe has finished (or this task is cancelled, which cancels the probe).
        for await identification in identifications {
            await recordIdentified(identification)
        }
        return (await probed, identified.value.withLock { $0 })
    }

    /// Runs `probe` on `port`; finishes `sink` when it ends, whatever the outcome.
    private static func run(
        _ probe: ModemProbe,
        port: String,
        finishing sink: AsyncStream<ModemIdentification>.Continuation
    ) async -> Result<ModemProbeReport, ModemProbeError> {
        defer { sink.finish() }
        do throws(ModemProbeError) {
            return .success(try await probe.probe(port: port))
        } catch {
            return .failure(error)
        }
    }

    /// Claims `imei` for this port in the directory, with the rules for a module seen on several
    /// ports: granted → the silent sibling interfaces are stopped; held by a live port → this is a
    /// secondary interface; held by a port whose node is gone → that supervisor is stopped.
    /// Synchronous and brief: it runs on the probe's task, between two commands.
    func claim(imei: String) -> IMEIClaim {
        switch context.directory.claim(imei: imei, path: path, id: entry.id) {
        case .heldBy(let holder) where !FileManager.default.fileExists(atPath: holder):
            // The module moved here while the old port's supervisor has not noticed its node is
            // gone (a static port, no udev event): stop that one and try again after the backoff.
            context.directory.stop(path: holder, reason: .vanished)
            return .heldByGone(port: holder)
        case .heldBy(let holder):
            return .heldBy(port: holder)
        case .granted(let siblings):
            context.directory.stop(siblings, reason: .secondary(atPort: path, imei: imei))
            status.withLock { $0.imei = imei }
            return .granted
        }
    }

    /// The outcome of an attempt whose claim of `imei` was refused; nil when it was granted.
    func refusal(_ claim: IMEIClaim, imei: String) -> AttemptOutcome? {
        switch claim {
        case .granted:
            return nil
        case .heldBy(let holder):
            return .secondary(atPort: holder, imei: imei)
        case .heldByGone(let holder):
            return .failure(
                ModemFailure(
                    .secondaryInterface,
                    "\(path): IMEI \(imei) is still held by the supervisor of \(holder), whose node is gone; "
                        + "it is being stopped and this port retries"
                )
            )
        }
    }

    /// Records the IMEI (and the identification read before it) in the modem table while the
    /// probe goes on; the row stays `probing`. A failed write is only logged: the full identity
    /// is written when the probe ends, and its failure is the attempt's.
    func recordIdentified(_ identification: ModemIdentification) async {
        let dialect = dialect(named: identification.dialect)
        do {
            let record = try await context.registry.modems.recordIMEI(
                port: path,
                imei: identification.imei,
                dialect: dialect.id,
                manufacturer: identification.manufacturer.flatMap { Self.text($0, limit: 128) },
                model: identification.model.flatMap { Self.text($0, limit: 128) },
                firmware: identification.firmware.flatMap { Self.text($0, limit: 128) },
                baud: identification.baudRate,
                state: ModemState.probing.rawValue
            )
            status.withLock { $0.deviceID = record.deviceID }
        } catch {
            // A cancelled task's write is refused: the port went away, nothing to report.
            if !Task.isCancelled {
                log(.warning, "cannot record the IMEI in the store before the probe ends: \(error)")
            }
            return
        }
        announceIdentified()
    }
}
