import Discovery
import Foundation
import Testing

@testable import nbgw

/// `nbgw discovery list`'s data path from entries, whoever computed them: a running daemon's
/// ledger (the control socket) is shown like the command's own computation.
@Suite("discovery listing from entries")
struct DiscoveryListingTests {
    static let console = DiscoveryEntry(
        devnode: "/dev/tty1",
        syspath: "/sys/devices/virtual/tty/tty1",
        subsystem: "tty",
        decision: .skip,
        reason: "not USB (/dev/tty1); …",
        source: .builtin("not a known module, bridge or cellular driver")
    )
    static let uart = DiscoveryEntry(
        devnode: "/dev/ttyS1",
        decision: .probe,
        reason: "[discovery] probe entry \"/dev/ttyS1\" (/etc/nbgw/nbgwd.toml line 4): /dev/ttyS1",
        source: .config("[discovery] probe entry \"/dev/ttyS1\"", at: .init(file: "/etc/nbgw/nbgwd.toml", line: 4))
    )
    static let stick = DiscoveryEntry(
        devnode: "/dev/ttyUSB0",
        vendorID: "10c4",
        productID: "ea60",
        manufacturer: "ITead",
        product: "Sonoff Zigbee 3.0 USB Dongle Plus",
        interfaceNumber: 0,
        driver: "cp210x",
        decision: .ignored,
        reason: "ID_NBGW_IGNORE=1 (udev rule)",
        source: .udev("ID_NBGW_IGNORE")
    )

    @Test("a daemon's entries: skipped non-USB ttys counted unless --all, the rest shown, said to be the daemon's")
    func fromDaemon() throws {
        let entries = [Self.console, Self.uart, Self.stick]
        let listing = DiscoveryListing.fromDaemon(entries: entries, all: false)
        #expect(listing.entries.map(\.devnode) == ["/dev/ttyS1", "/dev/ttyUSB0"])
        #expect(listing.hidden == 1 && listing.computedFrom == "daemon")
        #expect(listing.lines.first == "Decisions of the running nbgwd.")
        #expect(
            listing.lines.contains(
                "/dev/ttyUSB0  ignored   10c4:ea60  00  cp210x  ITead Sonoff Zigbee 3.0 USB Dongle Plus"
            )
        )
        #expect(
            listing.lines.last
                == "1 more tty without a USB parent (virtual consoles, on-board UARTs) skipped: --all shows them"
        )
        #expect(DiscoveryListing.fromDaemon(entries: entries, all: true).entries.count == 3)

        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let object = try #require(
            try JSONSerialization.jsonObject(with: encoder.encode(listing)) as? [String: Any]
        )
        #expect(Set(object.keys) == ["computedFrom", "entries", "hidden", "unmatched"])
    }
}
