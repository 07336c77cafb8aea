import DeviceIdentity
import Foundation
import GRDB
import NBGWCore
import Registry
import TestClocks
import Testing

/// The modem table (migration v5) on a real SQLite file: one row per IMEI across replugs, one
/// present row per port, honest states after a restart, and the schema's own checks.
@Suite struct ModemTableTests {
    let store: TestStore
    let clock = ManualWallClock()
    let registry: Registry

    init() throws {
        store = try TestStore()
        registry = try Registry(path: store.path, clock: clock)
    }

    static let imei = "866971030221902"
    static let otherIMEI = "490154203237518"

    static func identity(_ imei: String = imei, model: String = "BC95HB-02-STD_850") -> ModemRecord.Identity {
        ModemRecord.Identity(
            imei: imei,
            dialect: "quectel-bc95",
            manufacturer: "Quectel",
            model: model,
            firmware: "V100R100C10B657SP2",
            imsi: "460001234567890",
            iccid: "89860317452051234567",
            baud: 9600,
            registration: ModemRecord.Registration(stat: 2),
            signal: ModemRecord.Signal(rssiDBm: -77)
        )
    }

    @Test("a probed port gets a row without IMEI, then the IMEI and the identity")
    func probeThenIdentity() async throws {
        let probing = try await registry.modems.beginProbe(
            port: "/dev/ttyUSB2",
            deviceKey: "/sys/devices/usb1/1-1",
            attributes: ["vid_pid": "2c7c:0700", "interface": "02"]
        )
        #expect(probing.state == "probing" && probing.imei == nil && probing.attributes["vid_pid"] == "2c7c:0700")
        clock.advance(by: 2)
        let identified = try await registry.modems.recordIdentity(
            port: "/dev/ttyUSB2",
            Self.identity(),
            state: "configuring"
        )
        #expect(identified.imei == Self.imei && identified.state == "configuring")
        #expect(
            identified.model == "BC95HB-02-STD_850" && identified.baud == 9600 && identified.imsi == "460001234567890"
        )
        #expect(identified.registration.stat == 2 && identified.signal.rssiDBm == -77)
        #expect(identified.stateSince > probing.stateSince && identified.firstSeen == probing.firstSeen)
        #expect(identified.deviceKey == "/sys/devices/usb1/1-1")
        #expect(try registry.modems.all().count == 1)
    }

    @Test("an IMEI recorded while the probe runs joins the probing row; the full identity completes the same row")
    func imeiBeforeTheFullIdentity() async throws {
        let probing = try await registry.modems.beginProbe(port: "/dev/ttyUSB2", deviceKey: "/sys/devices/usb1/1-1")
        clock.advance(by: 1)
        let early = try await registry.modems.recordIMEI(
            port: "/dev/ttyUSB2",
            imei: Self.imei,
            dialect: "quectel-bc95",
            manufacturer: "Quectel",
            model: "BC95HB-02-STD_850",
            baud: 9600
        )
        #expect(early.imei == Self.imei && early.state == "probing" && early.stateSince == probing.stateSince)
        #expect(early.model == "BC95HB-02-STD_850" && early.baud == 9600 && early.firmware == nil)
        #expect(early.imsi == nil && early.registration.stat == nil, "not read yet")
        #expect(early.deviceKey == "/sys/devices/usb1/1-1" && early.lastSeen > probing.lastSeen)

        clock.advance(by: 1)
        let full = try await registry.modems.recordIdentity(port: "/dev/ttyUSB2", Self.identity(), state: "configuring")
        #expect(
            full.firstSeen == probing.firstSeen && full.state == "configuring" && full.stateSince > early.stateSince
        )
        #expect(full.imsi == "460001234567890" && full.firmware == "V100R100C10B657SP2")
        #expect(try registry.modems.all().count == 1)
        await #expect(throws: NBGWError.self) {
            try await registry.modems.recordIMEI(port: "/dev/ttyUSB2", imei: "12345")
        }
    }

    @Test("an IMEI recorded early on a replug takes the module's row and keeps its last facts until the full identity")
    func imeiEarlyOnAReplug() async throws {
        let device = try #require(
            try registry.directory.recordRegistration(
                ModuleIdentity(imei: try IMEI(Self.imei)),
                deviceID: try! DeviceID("nbearly00000000000001"),
                labelCode: "EARLY0000001",
                minted: true
            )
        ).device
        try await registry.modems.beginProbe(port: "/dev/ttyUSB2")
        try await registry.modems.recordIdentity(port: "/dev/ttyUSB2", Self.identity(), state: "registering")
        let first = try #require(
            try await registry.modems.update(
                port: "/dev/ttyUSB2",
                ModemRecord.Change(state: "ready", deviceID: device.deviceID)
            )
        )
        try await registry.modems.markAbsent(port: "/dev/ttyUSB2")

        clock.advance(by: 60)
        try await registry.modems.beginProbe(port: "/dev/ttyUSB5")
        let early = try await registry.modems.recordIMEI(
            port: "/dev/ttyUSB5",
            imei: Self.imei,
            model: nil,
            baud: 115_200
        )
        #expect(early.port == "/dev/ttyUSB5" && early.state == "probing" && early.firstSeen == first.firstSeen)
        #expect(early.deviceID == device.deviceID && early.imsi == "460001234567890", "the module's own row")
        #expect(early.model == "BC95HB-02-STD_850" && early.baud == 115_200, "nil leaves a column alone")
        #expect(try registry.modems.all().count == 1, "the new port's IMEI-less row is gone")

        // Another module behind the same node before the full identity: the row goes absent.
        let other = try await registry.modems.recordIMEI(port: "/dev/ttyUSB5", imei: Self.otherIMEI)
        #expect(other.imei == Self.otherIMEI && other.state == "probing" && other.deviceID == nil)
        #expect(try registry.modems.find(imeiOrPort: Self.imei)?.state == "absent")
        #expect(try registry.modems.find(imeiOrPort: "/dev/ttyUSB5")?.imei == Self.otherIMEI)
    }

    @Test("updates change only what they name; the state's timestamp moves only when the state changes")
    func updates() async throws {
        try await registry.modems.beginProbe(port: "/dev/ttyUSB2")
        try await registry.modems.recordIdentity(port: "/dev/ttyUSB2", Self.identity(), state: "searching")
        clock.advance(by: 5)
        let registered = try #require(
            try await registry.modems.update(
                port: "/dev/ttyUSB2",
                ModemRecord.Change(
                    state: "searching",
                    registration: ModemRecord.Registration(
                        stat: 1,
                        tac: "0A0B",
                        ci: "01020304",
                        act: 9,
                        technology: "nb-iot",
                        operator: "46000",
                        activeTimeSeconds: 60,
                        periodicTAUSeconds: 86400
                    ),
                    seen: true
                )
            )
        )
        #expect(registered.registration.tac == "0A0B" && registered.registration.periodicTAUSeconds == 86400)
        #expect(registered.signal.rssiDBm == -77, "untouched")
        #expect(registered.lastSeen > registered.firstSeen)
        let before = registered.stateSince

        clock.advance(by: 5)
        let failed = try #require(
            try await registry.modems.update(
                port: "/dev/ttyUSB2",
                ModemRecord.Change(
                    state: "failed",
                    failure: ("REGISTRATION_DENIED", "denied, reject cause 15"),
                    attempts: 1,
                    retryAt: Date(timeIntervalSince1970: 1_790_000_100)
                )
            )
        )
        #expect(failed.state == "failed" && failed.stateSince > before && failed.attempts == 1)
        #expect(failed.lastError?.code == "REGISTRATION_DENIED" && failed.retryAt != nil)
        #expect(failed.registration.tac == "0A0B", "untouched")

        let ready = try #require(
            try await registry.modems.update(
                port: "/dev/ttyUSB2",
                ModemRecord.Change(state: "ready", attempts: 0, clearsRetry: true)
            )
        )
        #expect(ready.retryAt == nil && ready.attempts == 0)
        #expect(ready.lastError?.code == "REGISTRATION_DENIED", "the last error stays for the operator")
        #expect(try await registry.modems.update(port: "/dev/ttyUSB9", ModemRecord.Change(state: "ready")) == nil)
    }

    @Test("a replug on another port moves the IMEI's row there: one row, same device id, first sighting kept")
    func replugMovesTheRow() async throws {
        let device = try #require(
            try registry.directory.recordRegistration(
                ModuleIdentity(imei: try IMEI(Self.imei)),
                deviceID: try! DeviceID("nbreplug0000000000001"),
                labelCode: "REPLUG000001",
                minted: true
            )
        ).device
        try await registry.modems.beginProbe(port: "/dev/ttyUSB2")
        try await registry.modems.recordIdentity(port: "/dev/ttyUSB2", Self.identity(), state: "registering")
        let first = try #require(
            try await registry.modems.update(
                port: "/dev/ttyUSB2",
                ModemRecord.Change(state: "ready", deviceID: device.deviceID)
            )
        )
        #expect(try await registry.modems.markAbsent(port: "/dev/ttyUSB2"))

        clock.advance(by: 60)
        try await registry.modems.beginProbe(port: "/dev/ttyUSB5")
        #expect(try registry.modems.all().count == 2, "the new port's row has no IMEI yet")
        let moved = try await registry.modems.recordIdentity(
            port: "/dev/ttyUSB5",
            Self.identity(),
            state: "configuring"
        )
        #expect(moved.port == "/dev/ttyUSB5" && moved.deviceID == device.deviceID && moved.firstSeen == first.firstSeen)
        let rows = try registry.modems.all()
        #expect(rows.count == 1)
        #expect(try registry.modems.find(imeiOrPort: "/dev/ttyUSB5")?.imei == Self.imei)
        #expect(try registry.modems.find(imeiOrPort: "/dev/ttyUSB2") == nil)
    }

    @Test("a different module on a known port: the old module's row goes absent, the new one gets its own")
    func swapOnTheSamePort() async throws {
        try await registry.modems.beginProbe(port: "/dev/ttyUSB2")
        try await registry.modems.recordIdentity(port: "/dev/ttyUSB2", Self.identity(), state: "ready")
        // Re-probe (after a reboot) finds another module behind the same node.
        try await registry.modems.beginProbe(port: "/dev/ttyUSB2")
        let other = try await registry.modems.recordIdentity(
            port: "/dev/ttyUSB2",
            Self.identity(Self.otherIMEI, model: "BC66"),
            state: "configuring"
        )
        #expect(other.imei == Self.otherIMEI && other.model == "BC66")
        let old = try #require(try registry.modems.find(imeiOrPort: Self.imei))
        #expect(old.state == "absent" && old.port == "/dev/ttyUSB2")
        #expect(try registry.modems.find(imeiOrPort: "/dev/ttyUSB2")?.imei == Self.otherIMEI, "the present row wins")
    }

    @Test("an IMEI-less row of a port is reused, so a silent port does not pile up rows across restarts")
    func reusesIMEILessRows() async throws {
        try await registry.modems.beginProbe(port: "/dev/ttyUSB0")
        try await registry.modems.update(port: "/dev/ttyUSB0", ModemRecord.Change(state: "not_modem"))
        #expect(try registry.modems.markAllAbsent() == 1)
        try await registry.modems.beginProbe(port: "/dev/ttyUSB0")
        let rows = try registry.modems.all()
        #expect(rows.count == 1 && rows.first?.state == "probing")
    }

    @Test("at start every row that claims a live state is marked absent")
    func markAllAbsent() async throws {
        for (index, state) in ["probing", "ready", "failed", "not_modem"].enumerated() {
            try await registry.modems.beginProbe(port: "/dev/ttyUSB\(index)")
            try await registry.modems.update(port: "/dev/ttyUSB\(index)", ModemRecord.Change(state: state))
        }
        try await registry.modems.markAbsent(port: "/dev/ttyUSB3")
        #expect(try registry.modems.markAllAbsent() == 3)
        #expect(try registry.modems.all().allSatisfy { $0.state == "absent" })
        #expect(try registry.modems.markAllAbsent() == 0)
    }

    @Test("listing: present rows by port first, then absent ones")
    func ordering() async throws {
        for port in ["/dev/ttyUSB3", "/dev/ttyUSB1", "/dev/ttyUSB2"] {
            try await registry.modems.beginProbe(port: port)
        }
        try await registry.modems.markAbsent(port: "/dev/ttyUSB1")
        #expect(try registry.modems.all().map(\.port) == ["/dev/ttyUSB2", "/dev/ttyUSB3", "/dev/ttyUSB1"])
    }

    @Test("the schema refuses two present rows on one port, bad IMEIs, unknown states and another IMEI's device")
    func schemaChecks() throws {
        let device = try #require(
            try registry.directory.recordRegistration(
                ModuleIdentity(imei: try IMEI(Self.otherIMEI)),
                deviceID: try! DeviceID("nbschema000000000001"),
                labelCode: "SCHEMA000001",
                minted: true
            )
        ).device
        let queue = try DatabaseQueue(path: store.path)
        let insert = """
            INSERT INTO modem (port, imei, state, state_since, device_id, first_seen, last_seen, updated_at)
            VALUES (?, ?, ?, 0, ?, 0, 0, 0)
            """
        try queue.write { db in
            try db.execute(sql: insert, arguments: ["/dev/ttyUSB2", nil, "ready", nil])
            try db.execute(sql: insert, arguments: ["/dev/ttyUSB2", nil, "absent", nil])
        }
        for arguments: StatementArguments in [
            ["/dev/ttyUSB2", nil, "probing", nil],
            ["/dev/ttyUSB3", "12345", "probing", nil],
            ["/dev/ttyUSB3", nil, "sleeping", nil],
            ["/dev/ttyUSB3", Self.imei, "ready", device.deviceID],
            ["/dev/ttyUSB3", nil, "ready", device.deviceID],
        ] {
            #expect(throws: DatabaseError.self, "\(arguments)") {
                try queue.write { db in try db.execute(sql: insert, arguments: arguments) }
            }
        }
        try queue.write { db in
            try db.execute(sql: insert, arguments: ["/dev/ttyUSB3", Self.otherIMEI, "ready", device.deviceID])
        }
    }

    @Test("lookup by IMEI or port; unknown keys give nil")
    func lookup() async throws {
        try await registry.modems.beginProbe(port: "/dev/ttyACM0")
        try await registry.modems.recordIdentity(port: "/dev/ttyACM0", Self.identity(), state: "ready")
        #expect(try registry.modems.find(imeiOrPort: Self.imei)?.port == "/dev/ttyACM0")
        #expect(try registry.modems.find(imeiOrPort: "/dev/ttyACM0")?.imei == Self.imei)
        #expect(try registry.modems.find(imeiOrPort: "/dev/ttyACM9") == nil)
        #expect(try registry.modems.find(imeiOrPort: Self.otherIMEI) == nil)
        await #expect(throws: NBGWError.self) {
            try await registry.modems.recordIdentity(port: "/dev/ttyACM0", Self.identity("12345"), state: "ready")
        }
    }
}
