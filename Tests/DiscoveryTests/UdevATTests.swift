import Foundation
import Testing

/// The fake modules' AT ports are ptys played by ModemSimulatorKit: a process that opens the node udev
/// reports (through umockdev's preload) talks AT to the simulated module.
@Suite(
    "AT through the fake modules' ptys under umockdev",
    .enabled(if: TestbedHarness.isAvailable, TestbedHarness.skipReason)
)
struct UdevATTests {
    @Test("every port the policy would probe (a tagged bridge too) answers AT with OK; nothing else is touched")
    func candidatesAnswer() async throws {
        let finished = try await TestbedHarness.run(
            serve: [
                "--add", "bg95:m1", "--add", "cp210x:b1:ID_NBGW_PROBE=1", "--add", "arduino:a1", "--add", "cp210x:b2",
            ],
            child: ["at", "--candidates"]
        )
        #expect(finished.status == 0, "\(finished.stderr)")
        let modules = try finished.events("added").map(TestbedModule.init)
        let expected = modules.flatMap { module in module.ports.filter { module.shouldProbe($0) }.map(\.devnode) }
        let answers = finished.events("at")
        #expect(answers.compactMap { $0["devnode"] as? String }.sorted() == expected.sorted())
        #expect(expected.count == 2)
        for answer in answers {
            #expect(answer["final"] as? String == "OK", "\(answer)")
            #expect((answer["lines"] as? [String])?.last == "OK")
        }
    }

    @Test("each fake module's AT ports answer with the IMEI the testbed announced for it, one per module")
    func identity() async throws {
        let finished = try await TestbedHarness.run(
            serve: ["--add", "bg95:m1", "--add", "bg95:m2"],
            child: ["at", "--command", "AT+CGSN=1", "/dev/ttyUSB2", "/dev/ttyUSB3", "/dev/ttyUSB6"]
        )
        #expect(finished.status == 0, "\(finished.stderr)")
        let modules = try finished.events("added").map(TestbedModule.init)
        #expect(Set(modules.compactMap(\.imei)).count == 2)
        for answer in finished.events("at") {
            let devnode = try #require(answer["devnode"] as? String)
            let module = try #require(modules.first { $0.ports.contains { $0.devnode == devnode } })
            let imei = try #require(module.imei)
            let lines = answer["lines"] as? [String] ?? []
            #expect(answer["final"] as? String == "OK")
            #expect(lines.contains("+CGSN: \(imei)"), "\(devnode): \(lines)")
        }
        // /dev/ttyUSB2 and /dev/ttyUSB3 are m1's AT and modem ports (if 02, if 04): one module, one IMEI.
        #expect(
            modules.first?.ports.filter { $0.interface == 2 || $0.interface == 4 }.map(\.devnode) == [
                "/dev/ttyUSB2", "/dev/ttyUSB3",
            ]
        )
        #expect(finished.events("at").count == 3)
    }

    @Test("unplugging a module hangs up a host's open port on it, like a USB unplug; other modules stay")
    func unplugHangsUp() async throws {
        let session = try TestbedHarness.Session(
            serve: ["--add", "bg95:m1", "--add", "cp210x:b1:ID_NBGW_PROBE=1"],
            child: ["at", "--candidates", "--hold"]
        )
        let module = try TestbedModule(try await session.next(event: "added") { $0["name"] as? String == "m1" })
        let bridge = try TestbedModule(try await session.next(event: "added") { $0["name"] as? String == "b1" })
        let atPort = try #require(module.ports.first { $0.role == "at" }).devnode
        for devnode in [atPort, bridge.ports[0].devnode] {
            let answer = try await session.next(event: "at") { $0["devnode"] as? String == devnode }
            #expect(answer["final"] as? String == "OK")
        }
        session.send("remove m1")
        let hangup = try await session.next(event: "hangup")
        #expect(hangup["devnode"] as? String == atPort)
        session.send("quit")
        let finished = try await session.finish(within: TestbedHarness.lineBudget)
        #expect(finished.status == 0, "\(finished.stderr)")
        #expect(finished.events("hangup").count == 1, "the bridge's port must stay up")
    }
}
