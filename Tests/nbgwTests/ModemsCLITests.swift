import DeviceIdentity
import Foundation
import Registry
import Testing

/// `nbgw modems` and `nbgw modem show` as real processes, reading a modem table written through
/// the same Registry functions the daemon's supervisors use.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct ModemsCLITests {
    let cli: CLI
    let registry: Registry

    static let readyIMEI = "864425038511204"
    static let failedIMEI = "490154203237518"
    static let absentIMEI = "866971030221902"

    init() throws {
        cli = try CLI()
        registry = try Registry(path: cli.database)
    }

    /// Four modems as a running daemon leaves them: ready, failed (denied), absent, and a port
    /// that is no modem. Returns the ready one's device id.
    @discardableResult
    func seed() async throws -> String {
        let device = try #require(
            try registry.directory.recordRegistration(
                ModuleIdentity(imei: try IMEI(Self.readyIMEI), manufacturer: "Quectel", model: "BG95-M3"),
                deviceID: try! DeviceID("nbclimodem0000000001"),
                labelCode: "CLIMODEM0001",
                minted: true
            )
        ).device
        try await registry.modems.beginProbe(
            port: "/dev/ttyUSB2",
            deviceKey: "/sys/devices/usb1/1-1",
            attributes: ["vid_pid": "2c7c:0700"]
        )
        try await registry.modems.recordIdentity(
            port: "/dev/ttyUSB2",
            ModemRecord.Identity(
                imei: Self.readyIMEI,
                dialect: "quectel-bg9x",
                manufacturer: "Quectel",
                model: "BG95-M3",
                firmware: "BG95M3LAR02A03",
                baud: 115_200
            ),
            state: "registering"
        )
        try await registry.modems.update(
            port: "/dev/ttyUSB2",
            ModemRecord.Change(
                state: "ready",
                registration: ModemRecord.Registration(
                    stat: 1,
                    tac: "B3C1",
                    ci: "01D4A2F3",
                    act: 8,
                    technology: "lte-m",
                    operator: "26201",
                    activeTimeSeconds: 60,
                    periodicTAUSeconds: 86400
                ),
                signal: ModemRecord.Signal(rssiDBm: -73, rsrpDBm: -86, rsrqDB: -10),
                deviceID: device.deviceID,
                seen: true
            )
        )

        try await registry.modems.beginProbe(port: "/dev/ttyUSB6")
        try await registry.modems.recordIdentity(
            port: "/dev/ttyUSB6",
            ModemRecord.Identity(imei: Self.failedIMEI, dialect: "3gpp", manufacturer: "Generic", model: "LPWA-1"),
            state: "searching"
        )
        try await registry.modems.update(
            port: "/dev/ttyUSB6",
            ModemRecord.Change(
                state: "failed",
                registration: ModemRecord.Registration(stat: 3, rejectCause: 15),
                failure: (
                    "REGISTRATION_DENIED", "/dev/ttyUSB6 (IMEI \(Self.failedIMEI)): the network denied registration"
                ),
                attempts: 2,
                retryAt: Date().addingTimeInterval(2)
            )
        )

        try await registry.modems.beginProbe(port: "/dev/ttyUSB9")
        try await registry.modems.recordIdentity(
            port: "/dev/ttyUSB9",
            ModemRecord.Identity(imei: Self.absentIMEI, dialect: "quectel-bc95", model: "BC95HB-02-STD_850"),
            state: "ready"
        )
        try await registry.modems.markAbsent(port: "/dev/ttyUSB9")

        try await registry.modems.beginProbe(port: "/dev/ttyUSB0")
        try await registry.modems.update(
            port: "/dev/ttyUSB0",
            ModemRecord.Change(state: "not_modem", failure: ("NOT_A_MODEM", "/dev/ttyUSB0 is not an AT modem port"))
        )
        return device.deviceID
    }

    @Test("modems --json lists every modem, present ones by port first, with state, IMEI, port, signal, device id")
    func listJSON() async throws {
        let deviceID = try await seed()
        let result = try cli.run("modems", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let modems = try #require(result.json["modems"] as? [[String: Any]])
        #expect(
            modems.map { $0["port"] as? String } == ["/dev/ttyUSB0", "/dev/ttyUSB2", "/dev/ttyUSB6", "/dev/ttyUSB9"]
        )
        #expect(modems.map { $0["state"] as? String } == ["not_modem", "ready", "failed", "absent"])
        let ready = modems[1]
        #expect(ready["imei"] as? String == Self.readyIMEI)
        #expect(ready["deviceId"] as? String == deviceID)
        #expect(ready["model"] as? String == "BG95-M3" && ready["dialect"] as? String == "quectel-bg9x")
        #expect((ready["signal"] as? [String: Any])?["rsrpDbm"] as? Int == -86)
        #expect((ready["registration"] as? [String: Any])?["operator"] as? String == "26201")
        #expect((ready["attributes"] as? [String: String])?["vid_pid"] == "2c7c:0700")
        #expect(modems[0]["imei"] == nil, "absent values are omitted")
        #expect((modems[2]["lastError"] as? [String: Any])?["code"] as? String == "REGISTRATION_DENIED")
    }

    @Test("modems prints one line per modem like mmcli -L: state, IMEI, model, port, signal, device id")
    func listText() async throws {
        let deviceID = try await seed()
        let result = try cli.run("modems")
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 5)
        #expect(lines[0].hasPrefix("STATE") && lines[0].contains("SIGNAL") && lines[0].contains("DEVICE"))
        let ready = try #require(lines.first { $0.hasPrefix("ready") })
        for part in [Self.readyIMEI, "BG95-M3", "/dev/ttyUSB2", "-86 dBm", deviceID] {
            #expect(ready.contains(part), "\(ready)")
        }
        let absent = try #require(lines.first { $0.hasPrefix("absent") })
        #expect(absent.contains(Self.absentIMEI) && absent.contains("/dev/ttyUSB9") && !absent.contains("dBm"))
    }

    @Test("modems on an empty store says so and succeeds")
    func emptyList() throws {
        let result = try cli.run("modems")
        #expect(result.status == 0)
        #expect(result.stdout.contains("no modems"))
        #expect(try cli.run("modems", "--json").json["modems"] as? [Any] != nil)
    }

    @Test("modem show by IMEI or port gives the whole row, the registration and the last error with what to do")
    func show() async throws {
        let deviceID = try await seed()
        let byIMEI = try cli.run("modem", "show", Self.readyIMEI, "--json")
        #expect(byIMEI.status == 0, "\(byIMEI.stderr)")
        let modem = try #require(byIMEI.json["modem"] as? [String: Any])
        #expect(modem["port"] as? String == "/dev/ttyUSB2" && modem["deviceId"] as? String == deviceID)
        let registration = try #require(modem["registration"] as? [String: Any])
        #expect(registration["tac"] as? String == "B3C1" && registration["periodicTauS"] as? Int == 86400)

        let failed = try cli.run("modem", "show", "/dev/ttyUSB6", "--json")
        #expect((failed.json["modem"] as? [String: Any])?["attempts"] as? Int == 2)
        #expect((failed.json["advice"] as? String)?.contains("SIM") == true)

        let text = try cli.run("modem", "show", "/dev/ttyUSB6")
        #expect(text.status == 0)
        for part in [
            "state:", "failed", "REGISTRATION_DENIED", "what to do:", "subscription", "reject cause 15",
            "denied (stat 3)", "next retry:", "attempts:",
        ] {
            #expect(text.stdout.contains(part), "\(part) missing from:\n\(text.stdout)")
        }
        let ready = try cli.run("modem", "show", "/dev/ttyUSB2")
        for part in [
            "registered_home (stat 1)", "lte-m (AcT 8)", "operator 26201", "RSRP -86 dBm", deviceID, "vid_pid",
        ] {
            #expect(ready.stdout.contains(part), "\(part) missing from:\n\(ready.stdout)")
        }
        let absent = try cli.run("modem", "show", Self.absentIMEI)
        #expect(absent.stdout.contains("Not supervised now"))
    }

    @Test("modem show of an unknown IMEI or port fails with UNKNOWN_DEVICE (exit 20)")
    func showUnknown() async throws {
        try await seed()
        let json = try cli.run("modem", "show", "/dev/ttyUSB7", "--json")
        #expect(json.status == 20 && json.errorCode == "UNKNOWN_DEVICE")
        let text = try cli.run("modem", "show", "356938035643809")
        #expect(text.status == 20)
        #expect(text.stderr.contains("UNKNOWN_DEVICE") && text.stderr.contains("nbgw modems"))
    }

    @Test("the listing reads the store while another process keeps writing the modem table")
    func readsWhileTheDaemonWrites() async throws {
        try await seed()
        let registry = self.registry
        let writer = Task {
            var rssi = -90
            while !Task.isCancelled {
                rssi = rssi == -60 ? -90 : rssi + 1
                try await registry.modems.update(
                    port: "/dev/ttyUSB2",
                    ModemRecord.Change(signal: ModemRecord.Signal(rssiDBm: rssi), seen: true)
                )
            }
        }
        defer { writer.cancel() }
        for _ in 0..<3 {
            let result = try cli.run("modems", "--json")
            #expect(result.status == 0, "\(result.stderr)")
            #expect((result.json["modems"] as? [Any])?.count == 4)
        }
    }
}
