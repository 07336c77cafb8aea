import Discovery
import Foundation
import Testing

/// The Discovery library against this machine's real udev (no umockdev): whatever ttys exist here.
@Suite("udev discovery on this machine", .serialized)
struct UdevDiscoveryLocalTests {
    @Test("enumerate lists this machine's tty nodes from sysfs; those without a USB parent are skipped")
    func enumerateHere() throws {
        let discovery = try UdevDiscovery()
        let ports = try discovery.enumerate()
        let sysfs = Set((try? FileManager.default.contentsOfDirectory(atPath: "/sys/class/tty")) ?? [])
        #expect(!ports.isEmpty, "no tty in /sys/class/tty")
        for port in ports {
            #expect(port.devnode.hasPrefix("/dev/") && port.syspath.hasPrefix("/sys/") && port.subsystem == "tty")
            #expect(sysfs.contains(String(port.syspath.split(separator: "/").last ?? "")), "\(port.syspath)")
            if !port.isUSB {
                #expect(!CandidatePolicy.standard.decide(port).isProbe, "\(port.devnode)")
                #expect(port.interfaceNumber == nil && port.usbDeviceSyspath == nil)
            }
        }
        #expect(Set(ports.map(\.syspath)).count == ports.count)
    }

    @Test("events() first reports every enumerated port once; cancelling the consumer ends it and its thread")
    func eventsThenCancel() async throws {
        let discovery = try UdevDiscovery()
        let expected = Set(try discovery.enumerate().map(\.syspath))
        let before = UdevDiscovery.runningEventThreads
        let (seen, consumer) = Self.collect(discovery.events(), until: expected.count)
        let reported = await seen.value
        #expect(Set(reported) == expected)
        #expect(reported.count == expected.count)
        #expect(UdevDiscovery.runningEventThreads == before + 1)
        // Events have arrived, so the thread runs and has named itself.
        #expect(Self.monitorThreads() >= 1, "threads: \(Self.threadNames())")
        consumer.cancel()
        await consumer.value
        // The thread wakes from poll() at once; the budget covers a two-core CI machine running
        // the other suites' simulated modems at the same time (2 s was seen to be too short there).
        let deadline = ContinuousClock.now + .seconds(10)
        while UdevDiscovery.runningEventThreads > before, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(UdevDiscovery.runningEventThreads == before)
    }

    @Test("a stream dropped without being iterated releases its thread too")
    func droppedStream() async throws {
        let discovery = try UdevDiscovery()
        // Counted from the call, not from /proc: the thread may not have been scheduled (or named)
        // yet when the stream is dropped, and a count taken then would miss it.
        let before = UdevDiscovery.runningEventThreads
        do {
            let stream = discovery.events()
            #expect(UdevDiscovery.runningEventThreads == before + 1)
            _ = stream
        }
        // The thread only has to notice the wake pipe; the budget covers a two-core CI machine
        // running the other suites' simulated modems at the same time.
        let deadline = ContinuousClock.now + .seconds(10)
        while UdevDiscovery.runningEventThreads > before, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(UdevDiscovery.runningEventThreads == before)
    }

    /// Consumes `stream` in a task; `seen` completes with the syspaths of the first `count` added ports.
    static func collect(
        _ stream: AsyncStream<UdevEvent>,
        until count: Int
    ) -> (Task<[String], Never>, Task<Void, Never>) {
        let (paths, continuation) = AsyncStream.makeStream(of: String.self)
        let consumer = Task {
            for await event in stream {
                if case .added(let port) = event { continuation.yield(port.syspath) }
            }
            continuation.finish()
        }
        let seen = Task {
            var syspaths: [String] = []
            for await path in paths {
                syspaths.append(path)
                if syspaths.count == count { break }
            }
            return syspaths
        }
        return (seen, consumer)
    }

    static func monitorThreads() -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter {
            (try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) == "nbgw-udev-mon"
        }.count
    }
}

extension UdevDiscoveryLocalTests {
    static func threadNames() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
    }
}
