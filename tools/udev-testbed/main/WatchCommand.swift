import ArgumentParser
import Discovery
import Foundation

/// `watch`: follows ``UdevDiscovery/events()`` and prints every event with its decision
/// (`{"event":"added",...}`, `{"event":"removed","devnode":...,"syspath":...}`) until SIGTERM/SIGINT.
/// Then it cancels the consuming task and prints `{"event":"stopped","monitorThreadsBefore":B,"monitorThreads":N}`:
/// the discovery threads alive before the cancellation, and still alive a moment after it (0 when the stream
/// cleaned up after itself).
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print the Discovery library's port events until SIGTERM, then check no discovery thread is left."
    )

    /// How long a cancelled stream's thread may take to exit: it wakes from poll() at once, so a
    /// second is generous even on a loaded CI machine.
    static let threadExitBudget: Duration = .seconds(2)

    @OptionGroup var selection: PolicyOptions

    func run() async throws {
        let discovery = try UdevDiscovery()
        let policy = try selection.policy()
        let consumer = Task {
            for await event in discovery.events() {
                switch event {
                case .added(let port):
                    JSONOutput.emit(DiscoveryOutput.port(port, event: "added", policy: policy))
                case .removed(let devnode, let syspath):
                    JSONOutput.emit(["event": "removed", "devnode": devnode, "syspath": syspath])
                }
            }
        }
        await Self.waitForTermination()
        let threadsBefore = Self.monitorThreadCount()
        consumer.cancel()
        await consumer.value
        let deadline = ContinuousClock.now + Self.threadExitBudget
        var threads = Self.monitorThreadCount()
        while threads > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
            threads = Self.monitorThreadCount()
        }
        JSONOutput.emit(["event": "stopped", "monitorThreadsBefore": threadsBefore, "monitorThreads": threads])
    }

    /// Threads of this process named like the discovery thread (`/proc/self/task/*/comm`).
    static func monitorThreadCount() -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter { task in
            let comm = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
            return comm?.trimmingCharacters(in: .whitespacesAndNewlines) == "nbgw-udev-mon"
        }.count
    }

    private static func waitForTermination() async {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in [SIGTERM, SIGINT] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { continuation.yield(signalNumber) }
            source.resume()
            sources.append(source)
        }
        for await _ in stream { break }
        for source in sources { source.cancel() }
    }
}
