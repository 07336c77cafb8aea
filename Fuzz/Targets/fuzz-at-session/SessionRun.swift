import FuzzSupport
import TestClocks

@testable import ATKit

/// One play of a script through a real ``ATSession`` on the ``Scheduler``'s single thread, with a
/// manual clock that moves only when every job has run and a command is still waiting.
final class SessionRun: @unchecked Sendable {
    /// What a command ended with. Values, not text: comparing them is cheap, printing them only
    /// happens when they differ.
    enum Result: Hashable {
        case response(ATResponse)
        case failure(ATError)
        case other(String)
    }

    var results: [Result] = []
    var urcs: [ATURC] = []
    var diagnostics: [ATSessionDiagnostic] = []
    var writes: [[UInt8]] = []

    /// The longest any timer of the session waits (command timeout, probe timeout, guard time).
    static let step: Duration = .seconds(30)

    /// Plays `script`; `split` seeds the chunking of every modem segment (nil: one chunk each).
    static func play(_ script: ATScript, split: UInt64?) -> SessionRun {
        let run = SessionRun()
        var generator = SplitMix64(seed: split ?? 0)
        func chunks(_ bytes: [UInt8]) -> [[UInt8]] {
            guard split != nil else { return bytes.isEmpty ? [] : [bytes] }
            return FuzzInput.split(bytes, using: &generator)
        }
        let transport = ScriptedTransport(
            boot: script.boot.flatMap(chunks),
            replies: script.replies.map(chunks),
            record: { run.writes.append($0) }
        )
        let clock = ManualClock()
        let configuration = ATSessionConfiguration(
            defaultTimeout: .seconds(2),
            guardTime: .milliseconds(20),
            // Never drop a URC: whether the consumer ran between two chunks must not matter.
            urcBufferLimit: 1 << 20,
            diagnostics: { run.diagnostics.append($0) }
        )
        var session: ATSession? = ATSession(transport: transport, configuration: configuration, clock: clock)
        let urcs = session!.urcs
        Task { for await urc in urcs { run.urcs.append(urc) } }
        Scheduler.drain()
        for command in script.commands {
            let outcome = Outcome()
            let current = session!
            Task {
                do {
                    outcome.result = .response(try await current.send(command))
                } catch let error as ATError {
                    outcome.result = .failure(error)
                } catch {
                    outcome.result = .other(String(describing: error))
                }
            }
            Scheduler.drain()
            var steps = 0
            while outcome.result == nil {
                fuzzCheck(
                    clock.sleeperCount > 0,
                    "\(command.debugDescription) is neither answered nor timed out, and no timer is armed"
                )
                fuzzCheck(steps < 64, "\(command.debugDescription) still pending after 64 timer steps")
                clock.advance(by: step)
                Scheduler.drain()
                steps += 1
            }
            run.results.append(outcome.result!)
        }
        let closing = session!
        Task { await closing.close() }
        Scheduler.drain()
        session = nil
        Scheduler.drain()
        return run
    }

    final class Outcome: @unchecked Sendable {
        var result: Result?
    }
}

/// The modem side: boot bytes at once, then one reply segment per write, each in its chunks.
/// `read()` returns one chunk at a time, and suspends when there is none.
final class ScriptedTransport: ATTransport, @unchecked Sendable {
    let portName = "/dev/fuzz0"
    private var pending: [[UInt8]]
    private var replies: [[[UInt8]]]
    private var reader: CheckedContinuation<[UInt8], any Error>?
    private var closed = false
    private let record: ([UInt8]) -> Void

    init(boot: [[UInt8]], replies: [[[UInt8]]], record: @escaping ([UInt8]) -> Void) {
        pending = boot
        self.replies = replies
        self.record = record
    }

    func read() async throws -> [UInt8] {
        if !pending.isEmpty { return pending.removeFirst() }
        if closed { throw ATTransportError.closed(port: portName, reason: .closedLocally) }
        return try await withCheckedThrowingContinuation { reader = $0 }
    }

    func write(_ bytes: [UInt8]) async throws {
        if closed { throw ATTransportError.closed(port: portName, reason: .closedLocally) }
        record(bytes)
        if !replies.isEmpty {
            pending += replies.removeFirst()
        }
        if let reader, !pending.isEmpty {
            self.reader = nil
            reader.resume(returning: pending.removeFirst())
        }
    }

    func close() async {
        closed = true
        if let reader {
            self.reader = nil
            reader.resume(throwing: ATTransportError.closed(port: portName, reason: .closedLocally))
        }
    }
}
