import Cloud
import DeviceIdentity
import Foundation
import Pairing
import Provisioning
import Registry
import Scanning
import TestClocks
import Testing

@Suite("Scanning: a session binds each scan, gives bad ones their code and goes on")
struct ScanSessionTests {
    final class Bench: Sendable {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nbgw-scan-\(UUID().uuidString)")
        let registry: Registry
        let cloud = EmbeddedCloud()
        let clock = ManualClock()

        init() throws {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            registry = try Registry(path: directory.appendingPathComponent("s.sqlite").path)
            try registry.directory.addAccount(name: "alice", role: .owner)
            try registry.directory.addHome(name: "lab", owner: "alice")
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        func register(_ imei: String) async throws -> String {
            let registration = try await DeviceRegistrar(cloud: cloud, registry: registry).register(imei: imei)
            return registration.labelPayload
        }

        func session(report: ScanReportWriter? = nil) -> ScanSession {
            ScanSession(
                binding: BindingService(cloud: cloud, registry: registry, clock: clock),
                account: "alice",
                home: "lab",
                report: report
            )
        }
    }

    @Test(
        "labels bind; a repeat within the window is ignored; garbage, Matter and unknown labels fail with their codes"
    )
    func mixedStream() async throws {
        let bench = try Bench()
        let first = try await bench.register("490154203237518")
        let second = try await bench.register("356938035643809")
        let reportPath = bench.directory.appendingPathComponent("scans.csv").path
        let session = bench.session(report: try ScanReportWriter(path: reportPath))

        var outcomes: [ScanOutcome] = []
        outcomes.append(try await session.handle(.payload(first)))
        outcomes.append(try await session.handle(.payload(first)))  // double read
        outcomes.append(try await session.handle(.payload("hello world")))
        outcomes.append(try await session.handle(.payload("MT:-24J042C00KA0648G00")))
        outcomes.append(try await session.handle(.payload(bench.cloud.labelBase + "ZZZZZZZZZZZZ")))
        outcomes.append(try await session.handle(.rejected(ScanRejection(.controlCharacter(0x1B, offset: 0)))))
        outcomes.append(try await session.handle(.payload(second)))
        bench.clock.advance(by: .seconds(3))
        outcomes.append(try await session.handle(.payload(second)))  // after the window: bound already

        #expect(outcomes.map(\.status) == [.bound, .repeat, .failed, .failed, .failed, .failed, .bound, .unchanged])
        #expect(
            outcomes.map(\.code) == [
                nil, nil, "QR_PROTOCOL_NOT_RECOGNIZED", "NOT_NB_DEVICE", "UNKNOWN_DEVICE", "INVALID_QR", nil, nil,
            ]
        )
        #expect(outcomes[1].repeatOf == 1)
        let tallies = await session.tallies
        #expect(tallies.scans == 8 && tallies.bound == 2 && tallies.unchanged == 1)
        #expect(tallies.failed == 4 && tallies.repeats == 1)
        #expect(try bench.registry.bindings.find(deviceID: outcomes[0].deviceID!)?.account == "alice")

        // The report: a header and one row per scan, already on file.
        let rows = try String(contentsOfFile: reportPath, encoding: .utf8).split(separator: "\n")
        #expect(rows.first == "line,status,code,message,device_id,ref,note")
        #expect(rows.count == 9)
        #expect(rows[1].hasPrefix("1,bound,,"))
        #expect(rows[3].hasPrefix("3,failed,QR_PROTOCOL_NOT_RECOGNIZED,"))
        var attributes = stat()
        stat(reportPath, &attributes)
        #expect(attributes.st_mode & 0o777 == 0o600)
    }

    @Test("a refused scan of a module the store knows names the module and its IMEI, in the outcome and the report")
    func refusedScanNamesTheModule() async throws {
        let bench = try Bench()
        let label = try await bench.register("490154203237518")
        try bench.registry.directory.addAccount(name: "bob", role: .owner)
        try bench.registry.directory.addHome(name: "bobs", owner: "bob")
        let deviceID = try #require(try bench.registry.directory.devices().first?.deviceID)
        _ = try bench.registry.bindings.bind(
            BindCommand(deviceID: try DeviceID(deviceID), account: "bob", home: "bobs", source: .cli)
        )
        let path = bench.directory.appendingPathComponent("scans.csv").path
        let session = bench.session(report: try ScanReportWriter(path: path))
        // By label, and by the NB bind JSON of the same module: both name it.
        let byLabel = try await session.handle(.payload(label))
        bench.clock.advance(by: .seconds(3))
        let json = #"{"actionName":"device_net_conn_bind_nb","actionData":{"id":"\#(deviceID)"}}"#
        let byJSON = try await session.handle(.payload(json))
        for outcome in [byLabel, byJSON] {
            #expect(outcome.code == "DEVICE_ALREADY_BOUND")
            #expect(outcome.deviceID == deviceID && outcome.imei == "490154203237518")
        }
        // What the store cannot know stays empty: garbage, and a label it never issued.
        let garbage = try await session.handle(.payload("hello world"))
        let unknown = try await session.handle(.payload(bench.cloud.labelBase + "ZZZZZZZZZZZZ"))
        #expect(garbage.deviceID == nil && unknown.deviceID == nil)
        let rows = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(rows[1].hasPrefix("1,failed,DEVICE_ALREADY_BOUND,") && rows[1].contains(",\(deviceID),"))
        #expect(rows[2].hasPrefix("2,failed,DEVICE_ALREADY_BOUND,") && rows[2].contains(",\(deviceID),"))
    }

    @Test("a second session appends to the report without a second header")
    func reportAppends() async throws {
        let bench = try Bench()
        let label = try await bench.register("490154203237518")
        let path = bench.directory.appendingPathComponent("scans.csv").path
        _ = try await bench.session(report: try ScanReportWriter(path: path)).handle(.payload(label))
        _ = try await bench.session(report: try ScanReportWriter(path: path)).handle(.payload(label))
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.components(separatedBy: "line,status").count == 2)
        #expect(text.split(separator: "\n").count == 3)
        // A payload a spreadsheet would run as a formula is defused.
        _ = try await bench.session(report: try ScanReportWriter(path: path)).handle(.payload("=HYPERLINK(1)"))
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains(",'=HYPERLINK(1),"))
    }

    @Test("a scan starting with a tab or a carriage return is defused in the report too, as = + - @ are")
    func reportDefusesTabAndCarriageReturn() async throws {
        let bench = try Bench()
        let path = bench.directory.appendingPathComponent("scans.csv").path
        let session = bench.session(report: try ScanReportWriter(path: path))
        for payload in ["\t=1+1", "\r=1+1", "-1+1", "@A1"] {
            _ = try await session.handle(.payload(payload))
        }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains(",'\t=1+1,"), "\(text.debugDescription)")
        #expect(text.contains(",\"'\r=1+1\","), "\(text.debugDescription)")
        #expect(text.contains(",'-1+1,") && text.contains(",'@A1,"), "\(text.debugDescription)")
    }
}

@Suite("Scanning: a serial scanner on a pty")
struct ScanInputTests {
    @Test("a pty as a serial scanner at 115200: scans arrive as they are typed, a bad one in between")
    func serialScanner() async throws {
        var master: Int32 = 0
        var slave: Int32 = 0
        var name = [CChar](repeating: 0, count: 128)
        #expect(openpty(&master, &slave, &name, nil, nil) == 0)
        defer { close(master) }
        let path = String(cString: name)
        let input = try ScanInput.open(path, kind: .lines, speed: 115_200)
        close(slave)
        var options = termios()
        let ttyFD = open(path, O_RDONLY | O_NOCTTY)
        tcgetattr(ttyFD, &options)
        #expect(cfgetispeed(&options) == speed_t(B115200))
        #expect(options.c_lflag & tcflag_t(ICANON) == 0)
        close(ttyFD)

        var reads = input.reads().makeAsyncIterator()
        for chunk in ["https://nbgw.local/l/AAAA1111\r", "bad\u{7}scan\r\n", #"{"actionName":"x"}"# + "\r"] {
            _ = chunk.utf8CString.withUnsafeBufferPointer { write(master, $0.baseAddress, $0.count - 1) }
        }
        #expect(await reads.next() == .payload("https://nbgw.local/l/AAAA1111"))
        #expect(await reads.next() == .rejected(ScanRejection(.controlCharacter(0x07, offset: 3))))
        #expect(await reads.next() == .payload(#"{"actionName":"x"}"#))
    }

    @Test("a speed a serial port does not take is refused, naming the ones it does")
    func badSpeed() throws {
        var master: Int32 = 0
        var slave: Int32 = 0
        var name = [CChar](repeating: 0, count: 128)
        #expect(openpty(&master, &slave, &name, nil, nil) == 0)
        defer {
            close(master)
            close(slave)
        }
        #expect { try ScanInput.open(String(cString: name), kind: .lines, speed: 12345) } throws: {
            ($0 as? ScanInputError)?.message.contains("115200") == true
        }
    }
}
