import Dispatch
import PosixSupport
import Synchronization
import Testing

@Suite("BoundedWorkQueue", .timeLimit(.minutes(1)))
struct BoundedWorkQueueTests {
    /// Jobs that block until released, counting how many run at once.
    final class Gate: Sendable {
        let semaphore = DispatchSemaphore(value: 0)
        let state = Mutex<(running: Int, most: Int, started: Int)>((0, 0, 0))

        func job() -> Int {
            state.withLock { state in
                state.running += 1
                state.started += 1
                state.most = max(state.most, state.running)
            }
            semaphore.wait()
            state.withLock { $0.running -= 1 }
            return 1
        }

        func started(_ count: Int) async {
            while state.withLock({ $0.started }) < count { await Task.yield() }
        }

        func release(_ count: Int) { for _ in 0..<count { semaphore.signal() } }
    }

    @Test("a job's result comes back to the awaiting task")
    func returnsTheResult() async throws {
        let queue = BoundedWorkQueue(name: "test", threads: 1, capacity: 1)
        #expect(try await queue.run { (1...10).reduce(0, +) } == 55)
        #expect(queue.completed == 1)
    }

    @Test("no more jobs run at once than the queue has threads; the rest wait their turn")
    func atMostThreadsAtOnce() async throws {
        let queue = BoundedWorkQueue(name: "test", threads: 2, capacity: 6)
        let gate = Gate()
        let results = Task {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 { group.addTask { try await queue.run { gate.job() } } }
                return try await group.reduce(0, +)
            }
        }
        await gate.started(2)
        #expect(queue.load.running == 2)
        gate.release(8)
        #expect(try await results.value == 8)
        #expect(gate.state.withLock { $0.most } == 2)
    }

    @Test("with every thread busy and the line full, the next job is refused at once and never runs")
    func refusesWhenFull() async throws {
        let queue = BoundedWorkQueue(name: "test", threads: 1, capacity: 2)
        let gate = Gate()
        let held = (0..<3).map { _ in Task { try await queue.run { gate.job() } } }
        await gate.started(1)
        while queue.load.waiting < 2 { await Task.yield() }
        let ran = Mutex(false)
        await #expect(throws: BoundedWorkQueue.Busy(running: 1, waiting: 2, stopped: false)) {
            try await queue.run { ran.withLock { $0 = true } }
        }
        gate.release(3)
        for task in held { _ = try await task.value }
        #expect(!ran.withLock { $0 })
        #expect(queue.completed == 3)
    }

    @Test("while its threads are blocked, the cooperative pool stays free for everything else")
    func thePoolStaysFree() async throws {
        // As many blocked jobs as the machine has cores, and more waiting: run on the pool, they
        // would hold every cooperative thread and the task below would never run.
        let queue = BoundedWorkQueue(name: "test", threads: 4, capacity: 16)
        let gate = Gate()
        let blocked = (0..<20).map { _ in Task { try await queue.run { gate.job() } } }
        await gate.started(4)
        let answer = await Task { 6 * 7 }.value
        #expect(answer == 42)
        gate.release(20)
        for task in blocked { _ = try await task.value }
    }

    @Test("once stopped, what waits still runs and new work is refused")
    func stopping() async throws {
        let queue = BoundedWorkQueue(name: "test", threads: 1, capacity: 1)
        let gate = Gate()
        let first = Task { try await queue.run { gate.job() } }
        await gate.started(1)
        let second = Task { try await queue.run { gate.job() } }
        while queue.load.waiting < 1 { await Task.yield() }
        queue.stop()
        await #expect(throws: BoundedWorkQueue.Busy.self) { try await queue.run { 0 } }
        gate.release(2)
        #expect(try await first.value + second.value == 2)
    }
}
