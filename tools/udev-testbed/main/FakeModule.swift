import Foundation
import ModemSimulatorKit

#if canImport(Glibc)
import Glibc
#endif

/// A fake module plugged into the testbed: its sysfs record and the simulators behind its ttys.
final class FakeModule {
    let name: String
    let record: FakeModuleRecord
    /// The AT family of the module (the first interface played by a modem family).
    let family: String?
    let imei: String?
    private var simulators: [ModemSimulator] = []
    private var masters: [Int32] = []
    /// The ptys' slaves (`/dev/pts/N`), whose entries in umockdev's pty map go with the module.
    private var slavePaths: [String] = []
    /// The devnodes of the simulator's ports, in its port order (its statistics' indices).
    private var playedDevnodes: [String] = []

    /// Builds the module, adds it to `testbed` (which announces it with `add` uevents) and starts a
    /// simulator on every interface that has a family. `ordinal` shifts the IMEI so that every
    /// module has its own; both AT ports of one module share it, as on a real module.
    init(
        name: String,
        kind: FakeModuleKind,
        familyOverride: String?,
        properties: [String: String] = [:],
        ordinal: Int,
        firstTTY: Int,
        stockProperties: Bool,
        timeScale: Double,
        testbed: Testbed
    ) throws {
        self.name = name
        let serial = kind.serial ?? String(format: "%08x", UInt32(truncatingIfNeeded: Self.hash(name)))
        record = FakeModuleRecord(
            kind: kind,
            usbPort: ordinal,
            serial: serial,
            firstTTY: firstTTY,
            stockProperties: stockProperties,
            extraProperties: properties
        )
        // Families first, so that a bad FAMILY fails before anything is plugged in. One simulator plays all
        // of the module's ports on one thread; it numbers them 0, 1, … and adds that number to the IMEI,
        // so each port's family base is shifted by (ordinal − number): every port shows the module's IMEI.
        var played: [(port: FakeModuleRecord.Port, configuration: SimulatedPortConfiguration)] = []
        var atFamily: String?
        var imei: String?
        for port in record.ports {
            guard var familyID = port.interface.family else { continue }
            if let familyOverride, familyID != "diag", familyID != "nmea" { familyID = familyOverride }
            guard var family = SimulatedFamily.named(familyID) else {
                let known = SimulatedFamily.all.map(\.id).joined(separator: ", ")
                throw TestbedError("unknown simulator family \(familyID.debugDescription); known: \(known)")
            }
            if family.kind == .modem, let base = Int(family.imeiBase) {
                family.imeiBase = String(base + ordinal - played.count)
                atFamily = atFamily ?? family.id
                imei = imei ?? family.imei(port: played.count)
            }
            played.append((port, SimulatedPortConfiguration(family: family)))
        }
        family = atFamily
        self.imei = imei

        try testbed.add(record.text)
        var adopted: [(configuration: SimulatedPortConfiguration, master: ModemSimulator.AdoptedMaster)] = []
        for (port, configuration) in played {
            let master = testbed.masterDescriptor(devnode: port.devnode)
            guard master >= 0 else { throw TestbedError("umockdev made no pty for \(port.devnode)") }
            let slavePath = try testbed.slavePath(devnode: port.devnode)
            masters.append(master)
            slavePaths.append(slavePath)
            playedDevnodes.append(port.devnode)
            adopted.append((configuration, .init(descriptor: master, slavePath: slavePath, path: port.devnode)))
        }
        if !adopted.isEmpty {
            let simulator = ModemSimulator(adopting: adopted, timeScale: timeScale)
            try simulator.start()
            simulators.append(simulator)
        }
    }

    /// Unplugs the module: `remove` uevents (children first), then the ptys hang up (hosts read EOF
    /// or EIO), then the sysfs tree goes.
    ///
    /// umockdev records every pty it creates in `<root>/dev/.ptymap/_dev_pts_N` and never forgets it:
    /// once the pty is closed the kernel hands its number to the next `openpty`, and umockdev would then
    /// abort on the stale entry. The entries of this module's (now closed) ptys are removed with it.
    func unplug(from testbed: Testbed) {
        for port in record.ports.reversed() {
            testbed.uevent(port.syspath, action: "remove")
        }
        hangUp()
        testbed.remove(record.usbDeviceSyspath)
        for slavePath in slavePaths {
            unlink(testbed.rootDirectory + "/dev/.ptymap/" + slavePath.replacingOccurrences(of: "/", with: "_"))
        }
        slavePaths.removeAll()
    }

    /// Stops the simulators and closes every master: umockdev keeps its own copy open for the
    /// testbed's life, so it is replaced by /dev/null (the number stays valid for umockdev's final close).
    func hangUp() {
        for simulator in simulators { simulator.stop() }
        simulators.removeAll()
        let null = open("/dev/null", O_RDWR)
        for master in masters where null >= 0 { _ = dup2(null, master) }
        if null >= 0 { close(null) }
        masters.removeAll()
    }

    /// What each played port received and sent so far: `{"event":"stats","name":…,"ports":[…]}`. A port
    /// nobody plays (a dead interface) is left out.
    var statistics: [String: Any?] {
        let counters = simulators.flatMap { $0.statistics() }
        return [
            "event": "stats",
            "name": name,
            "ports": counters.compactMap { counter -> [String: Any]? in
                guard counter.index < playedDevnodes.count else { return nil }
                return [
                    "devnode": playedDevnodes[counter.index],
                    "bytesReceived": counter.bytesReceived,
                    "bytesSent": counter.bytesSent,
                    "commands": counter.commands,
                ]
            },
        ]
    }

    /// The JSON line announcing the module.
    var summary: [String: Any?] {
        [
            "event": "added",
            "name": name,
            "kind": record.kind.id,
            "vendorID": record.kind.vendorID,
            "productID": record.kind.productID,
            "serial": record.serial,
            "usbDevice": record.usbDeviceSyspath,
            "family": family,
            "imei": imei,
            "properties": record.extraProperties.isEmpty ? nil : record.extraProperties,
            "ports": record.ports.map { port -> [String: Any] in
                [
                    "devnode": port.devnode,
                    "syspath": port.syspath,
                    "interface": port.interface.number,
                    "role": port.interface.role,
                    "family": port.interface.family ?? NSNull(),
                ]
            },
        ]
    }

    /// FNV-1a: a stable serial number from the module's name.
    private static func hash(_ text: String) -> UInt64 {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            value ^= UInt64(byte)
            value = value &* 0x100_0000_01b3
        }
        return value
    }
}
