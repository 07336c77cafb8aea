import Foundation
import Registry
import Testing

@testable import Gateway

/// A supervisor's state changes reach the store even from a task that is being cancelled.
@Suite(.timeLimit(.minutes(1)))
struct SupervisorCancellationTests {
    /// The race CI hit: the port hangs up, the supervisor decides `absent`, and the unplug event
    /// cancels its task before the write. Here the task is cancelled before the transition, every
    /// time.
    @Test("a transition is recorded even when the supervisor's task is already cancelled")
    func transitionLandsWhenCancelled() async throws {
        let harness = try GatewayHarness()
        let path = "/dev/ttyNBGW-cancelled"
        _ = try await harness.registry.modems.beginProbe(port: path)
        let context = harness.gateway.context
        let entry = try #require(context.directory.begin(ModemPort(path: path, origin: .config)))
        let supervisor = ModemSupervisor(entry: entry, context: context)

        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            #expect(Task.isCancelled)
            await supervisor.transition(to: .absent)
        }
        await task.value
        #expect(try harness.registry.modems.find(imeiOrPort: path)?.state == "absent")
    }
}
