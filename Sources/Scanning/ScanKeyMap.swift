/// What a HID keyboard scanner's keys type: Linux key codes (`linux/input-event-codes.h`) to the
/// character without and with Shift. Scanners "type" a code through a keyboard layout set on the
/// scanner; the map must be the same layout.
///
/// Adding a layout: a static map like ``us`` with the keys whose characters differ (German: Y and
/// Z swapped, `-` on the key US calls `/`, …), and a case in ``named(_:)``
/// (docs/labels-and-scanning.md, "Another keyboard layout").
public struct ScanKeyMap: Sendable, Equatable {
    public let name: String
    /// Key code → (plain, shifted) ASCII byte.
    public let keys: [UInt16: (plain: UInt8, shifted: UInt8)]

    public static func == (lhs: ScanKeyMap, rhs: ScanKeyMap) -> Bool { lhs.name == rhs.name }

    public init(name: String, keys: [UInt16: (plain: UInt8, shifted: UInt8)]) {
        self.name = name
        self.keys = keys
    }

    /// The layouts built in.
    public static func named(_ name: String) -> ScanKeyMap? {
        switch name.lowercased() {
        case "us": us
        default: nil
        }
    }

    public static let available = ["us"]

    /// US English (the default of every scanner we know).
    public static let us: ScanKeyMap = {
        var keys: [UInt16: (plain: UInt8, shifted: UInt8)] = [:]
        func row(_ first: UInt16, _ plain: String, _ shifted: String) {
            for (offset, (a, b)) in zip(plain.utf8, shifted.utf8).enumerated() { keys[first + UInt16(offset)] = (a, b) }
        }
        row(2, "1234567890-=", "!@#$%^&*()_+")  // KEY_1 … KEY_EQUAL
        row(16, "qwertyuiop[]", "QWERTYUIOP{}")  // KEY_Q … KEY_RIGHTBRACE
        row(30, "asdfghjkl;'`", "ASDFGHJKL:\"~")  // KEY_A … KEY_GRAVE
        row(43, "\\zxcvbnm,./", "|ZXCVBNM<>?")  // KEY_BACKSLASH … KEY_SLASH
        keys[57] = (0x20, 0x20)  // KEY_SPACE
        keys[55] = (0x2A, 0x2A)  // KEY_KPASTERISK
        row(71, "789-456+1230.", "789-456+1230.")  // KEY_KP7 … KEY_KPDOT
        keys[98] = (0x2F, 0x2F)  // KEY_KPSLASH
        keys[117] = (0x3D, 0x3D)  // KEY_KPEQUAL
        return ScanKeyMap(name: "us", keys: keys)
    }()
}
