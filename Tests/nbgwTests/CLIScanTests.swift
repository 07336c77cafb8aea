import Foundation
import Registry
import Testing

/// What a running process printed so far, read on a thread of its own.
final class OutputCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private var ended = false

    init(_ handle: FileHandle) {
        let thread = Thread { [self] in
            while true {
                let chunk = handle.availableData
                lock.withLock {
                    if chunk.isEmpty { ended = true } else { data.append(chunk) }
                }
                if chunk.isEmpty { break }
            }
        }
        thread.start()
    }

    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }

    /// Waits (up to `seconds`) until the output satisfies `predicate`.
    @discardableResult
    func wait(seconds: Double = 20, until predicate: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if predicate(text) { return true }
            if lock.withLock({ ended }) { return predicate(text) }
            usleep(20_000)
        }
        return predicate(text)
    }
}

@Suite("nbgw scan: sessions through a terminal, a serial pty and a recorded evdev stream")
struct CLIScanTests {
    static func pty() -> (master: Int32, slave: Int32, path: String) {
        var master: Int32 = 0
        var slave: Int32 = 0
        var name = [CChar](repeating: 0, count: 128)
        precondition(openpty(&master, &slave, &name, nil, nil) == 0, "openpty failed")
        return (master, slave, String(cString: name))
    }

    static func type(_ text: String, into fd: Int32) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// Two modules' labels, a repeat, garbage, a Matter code and an unknown label, then the second.
    static func script(_ labels: [String]) -> [String] {
        [
            labels[0], labels[0], "garbage!", "MT:-24J042C00KA0648G00", "https://nbgw.local/d/ZZZZZZZZZZZZ", labels[1],
        ]
    }

    static func expectSession(_ output: String, _ report: String) throws {
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.count == 7, "\(output)")
        guard lines.count == 7 else { return }
        #expect(lines[0].hasPrefix("✔ 1 bound "))
        #expect(lines[1].hasPrefix("· 2 the same code as scan 1"))
        #expect(lines[2].hasPrefix("✗ 3 QR_PROTOCOL_NOT_RECOGNIZED"))
        #expect(lines[3].hasPrefix("✗ 4 NOT_NB_DEVICE"))
        #expect(lines[4].hasPrefix("✗ 5 UNKNOWN_DEVICE"))
        #expect(lines[5].hasPrefix("✔ 6 bound "))
        #expect(lines[6] == "summary: 6 scans: 2 bound, 0 unchanged, 3 failed, 1 repeat ignored")
        let rows = try String(contentsOfFile: report, encoding: .utf8).split(separator: "\n")
        #expect(rows.count == 7)
        #expect(rows[5].hasPrefix("5,failed,UNKNOWN_DEVICE,"))
    }

    static func labels(_ cli: CLI) throws -> [String] {
        try cli.run("accounts", "add", "alice")
        try cli.run("homes", "add", "bench", "--owner", "alice")
        return try ["490154203237518", "356938035643809"].map { imei in
            try cli.run("devices", "register", "--imei", imei, "--json").json["qr"] as! String
        }
    }

    func start(_ cli: CLI, _ arguments: [String], stdin: FileHandle? = nil) throws -> (Process, OutputCollector, Pipe) {
        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = ["scan", "--account", "alice", "--home", "bench"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["NBGW_DB"] = cli.database
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = stdin ?? FileHandle.nullDevice
        try process.run()
        return (process, OutputCollector(out.fileHandleForReading), err)
    }

    @Test("a keyboard-wedge scanner typing into a terminal (a pty on stdin): each scan answers at once; Ctrl-C sums up")
    func terminal() throws {
        let cli = try CLI()
        let labels = try Self.labels(cli)
        let report = cli.directory.appendingPathComponent("scans.csv").path
        let (master, slave, _) = Self.pty()
        defer { close(master) }
        let (process, output, _) = try start(
            cli,
            ["--report", report],
            stdin: FileHandle(fileDescriptor: slave, closeOnDealloc: true)
        )
        for (index, payload) in Self.script(labels).enumerated() {
            // A wedge scanner ends each code with Enter: CR, which the terminal turns into a newline.
            Self.type(payload + "\r", into: master)
            #expect(output.wait { $0.split(separator: "\n").count >= index + 1 }, "scan \(index + 1): \(output.text)")
        }
        process.interrupt()
        process.waitUntilExit()
        output.wait { $0.contains("summary:") }
        #expect(process.terminationStatus == 1)
        try Self.expectSession(output.text, report)
    }

    @Test("a serial scanner on a pty at 115200: the session binds what it sends; SIGTERM sums up")
    func serial() throws {
        let cli = try CLI()
        let labels = try Self.labels(cli)
        let report = cli.directory.appendingPathComponent("serial.csv").path
        let (master, slave, path) = Self.pty()
        defer {
            close(master)
            close(slave)
        }
        let (process, output, err) = try start(cli, ["--input", path, "--speed", "115200", "--report", report])
        // The session has set the port up once it says it is scanning.
        let banner = OutputCollector(err.fileHandleForReading)
        #expect(banner.wait { $0.contains("scanning from \(path)") }, "\(banner.text)")
        for (index, payload) in Self.script(labels).enumerated() {
            Self.type(payload + "\r\n", into: master)
            #expect(output.wait { $0.split(separator: "\n").count >= index + 1 }, "scan \(index + 1): \(output.text)")
        }
        process.terminate()
        process.waitUntilExit()
        output.wait { $0.contains("summary:") }
        try Self.expectSession(output.text, report)
    }

    @Test("a recorded evdev stream of a HID scanner (Shift for capitals and JSON punctuation) binds to its end")
    func evdevRecording() throws {
        let cli = try CLI()
        let labels = try Self.labels(cli)
        let deviceID =
            try #require(
                try cli.run("qr", "parse", labels[1], "--json").json["actionData"] as? [String: Any]
            )["id"] as! String
        let seedJSON = #"{"actionName":"device_net_conn_bind_nb","actionData":{"id":"\#(deviceID)"}}"#
        var recording: [UInt8] = []
        for payload in [
            labels[0], labels[0], "garbage!", "MT:-24J042C00KA0648G00", "https://nbgw.local/d/ZZZZZZZZZZZZ", seedJSON,
        ] {
            recording += EvdevKeys.typing(payload)
        }
        let file = cli.directory.appendingPathComponent("scanner.events")
        try Data(recording).write(to: file)
        let report = cli.directory.appendingPathComponent("evdev.csv").path
        let (process, output, err) = try start(
            cli,
            ["--input", file.path, "--input-kind", "evdev", "--report", report]
        )
        process.waitUntilExit()
        output.wait { $0.contains("summary:") }
        #expect(String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).contains("scanning"))
        try Self.expectSession(output.text, report)
    }

    @Test("JSON lines: one object per scan with running tallies, then the summary")
    func json() throws {
        let cli = try CLI()
        let labels = try Self.labels(cli)
        let input = cli.directory.appendingPathComponent("scans.txt")
        try Data((labels.joined(separator: "\n") + "\n").utf8).write(to: input)
        let (process, output, _) = try start(cli, ["--input", input.path, "--json"])
        process.waitUntilExit()
        output.wait { $0.contains("summary") }
        let objects = output.text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(objects.count == 3)
        #expect(objects.first?["status"] as? String == "bound")
        #expect((objects[1]["tallies"] as? [String: Any])?["bound"] as? Int == 2)
        #expect((objects.last?["summary"] as? [String: Any])?["scans"] as? Int == 2)
        #expect(process.terminationStatus == 0)
    }

    @Test("a modem's port is refused as a scanner input: scanned bytes never go near a modem")
    func modemPortRefused() async throws {
        let cli = try CLI()
        _ = try Self.labels(cli)
        let (master, slave, path) = Self.pty()
        defer {
            close(master)
            close(slave)
        }
        try await Registry(path: cli.database).modems.beginProbe(port: path)
        let refused = try cli.run("scan", "--account", "alice", "--home", "bench", "--input", path, "--json")
        #expect(refused.errorCode == "INVALID_ARGUMENT")
        #expect(refused.stdout.contains("nbgwd manages"))
    }
}

/// A HID scanner's `struct input_event` records (64-bit Linux: timeval, type, code, value), US layout.
enum EvdevKeys {
    static func record(_ type: UInt16, _ code: UInt16, _ value: Int32, time: Int64) -> [UInt8] {
        var bytes: [UInt8] = []
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        append(time / 1_000_000)
        append(time % 1_000_000)
        append(type)
        append(code)
        append(value)
        return bytes
    }

    static let keys: [Character: (code: UInt16, shift: Bool)] = {
        var keys: [Character: (UInt16, Bool)] = [:]
        func row(_ first: UInt16, _ plain: String, _ shifted: String) {
            for (offset, (a, b)) in zip(plain, shifted).enumerated() {
                keys[a] = (first + UInt16(offset), false)
                keys[b] = (first + UInt16(offset), true)
            }
        }
        row(2, "1234567890-=", "!@#$%^&*()_+")
        row(16, "qwertyuiop[]", "QWERTYUIOP{}")
        row(30, "asdfghjkl;'`", "ASDFGHJKL:\"~")
        row(43, "\\zxcvbnm,./", "|ZXCVBNM<>?")
        keys[" "] = (57, false)
        return keys
    }()

    static func typing(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var time: Int64 = 1_764_000_000_000_000
        func key(_ code: UInt16, _ value: Int32) {
            time += 1_200
            bytes += record(4, 4, Int32(code) + 0x7_0000, time: time)
            bytes += record(1, code, value, time: time)
            bytes += record(0, 0, 0, time: time)
        }
        for character in text {
            let (code, shift) = keys[character]!
            if shift { key(42, 1) }
            key(code, 1)
            key(code, 0)
            if shift { key(42, 0) }
        }
        key(28, 1)
        key(28, 0)
        return bytes
    }
}
