/// Turns the `struct input_event` records a HID keyboard scanner produces on
/// `/dev/input/event*` into scans: key presses through the key map (Shift and Caps Lock applied),
/// Enter (or Tab, when it is the suffix) ending each scan. Fed one byte at a time: a record may
/// arrive in pieces.
///
/// The record (`linux/input.h`, 64-bit Linux): `struct timeval` (16 bytes), `__u16 type`,
/// `__u16 code`, `__s32 value`, in the machine's byte order (little-endian on x86-64 and arm64).
/// Only `EV_KEY` records count; a press is value 1, a release 0, autorepeat 2 (ignored: a
/// scanner does not hold keys, and a repeat would double a character).
public struct EvdevScanDecoder: Sendable {
    public static let recordSize = 24
    static let typeKey: UInt16 = 1
    static let leftShift: UInt16 = 42
    static let rightShift: UInt16 = 54
    static let capsLock: UInt16 = 58
    static let enter: UInt16 = 28
    static let keypadEnter: UInt16 = 96
    static let tab: UInt16 = 15
    /// Ctrl, Alt, Meta, Num Lock, Scroll Lock: modifiers a scanner may press around a code, typing nothing.
    static let silent: Set<UInt16> = [29, 97, 56, 100, 125, 126, 69, 70]

    public let keyMap: ScanKeyMap
    private var assembler: ScanLineAssembler
    private var record: [UInt8] = []
    private var shifts: Set<UInt16> = []
    private var capsLocked = false

    public init(keyMap: ScanKeyMap = .us, endsWithTab: Bool = false) {
        self.keyMap = keyMap
        self.assembler = ScanLineAssembler(endsWithTab: endsWithTab)
        record.reserveCapacity(Self.recordSize)
    }

    /// Feeds one byte; returns a scan when the record it completes ended one.
    public mutating func feed(_ byte: UInt8) -> ScanRead? {
        record.append(byte)
        guard record.count == Self.recordSize else { return nil }
        defer { record.removeAll(keepingCapacity: true) }
        let type = UInt16(record[16]) | UInt16(record[17]) << 8
        let code = UInt16(record[18]) | UInt16(record[19]) << 8
        let value = Int32(
            bitPattern: UInt32(record[20]) | UInt32(record[21]) << 8 | UInt32(record[22]) << 16
                | UInt32(record[23]) << 24
        )
        guard type == Self.typeKey else { return nil }
        return key(code, value: value)
    }

    /// The end of the input (a recording ends): a last scan without its suffix still counts.
    public mutating func finish() -> ScanRead? {
        assembler.finish()
    }

    private mutating func key(_ code: UInt16, value: Int32) -> ScanRead? {
        if code == Self.leftShift || code == Self.rightShift {
            if value == 0 { shifts.remove(code) } else { shifts.insert(code) }
            return nil
        }
        guard value == 1 else { return nil }
        switch code {
        case Self.capsLock:
            capsLocked.toggle()
            return nil
        case Self.enter, Self.keypadEnter:
            return assembler.feed(0x0A)
        case Self.tab:
            return assembler.feed(0x09)
        case _ where Self.silent.contains(code):
            return nil
        default:
            guard let character = keyMap.keys[code] else {
                assembler.poison(.unknownKey(code))
                return nil
            }
            let isLetter = (0x61...0x7A).contains(character.plain)
            let shifted = !shifts.isEmpty != (isLetter && capsLocked)
            return assembler.feed(shifted ? character.shifted : character.plain)
        }
    }
}
