import Foundation
import Scanning
import Testing

/// Records as a HID keyboard scanner produces them on /dev/input/event*: `struct input_event`
/// (timeval, type, code, value; little-endian, 24 bytes), with the EV_MSC scan code before each
/// key and an EV_SYN report after it, as the kernel's HID driver emits them.
enum EvdevRecording {
    static let evSyn: UInt16 = 0
    static let evKey: UInt16 = 1
    static let evMsc: UInt16 = 4

    static func record(_ type: UInt16, _ code: UInt16, _ value: Int32, time: Int64) -> [UInt8] {
        var bytes: [UInt8] = []
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        append(time / 1_000_000)  // tv_sec
        append(time % 1_000_000)  // tv_usec
        append(type)
        append(code)
        append(value)
        return bytes
    }

    /// US key codes: what a scanner presses for each ASCII character, and whether with Shift.
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

    /// The records of a scanner typing `text` then Enter: press and release per key, Shift held
    /// around each shifted character, an autorepeat record now and then (the decoder must ignore it).
    static func typing(_ text: String, suffix: UInt16 = 28) -> [UInt8] {
        var bytes: [UInt8] = []
        var time: Int64 = 1_764_000_000_000_000
        func key(_ code: UInt16, _ value: Int32) {
            time += 1_500
            bytes += record(evMsc, 4, Int32(code) + 0x7_0000, time: time)
            bytes += record(evKey, code, value, time: time)
            bytes += record(evSyn, 0, 0, time: time)
        }
        for (index, character) in text.enumerated() {
            let (code, shift) = keys[character]!
            if shift { key(42, 1) }
            key(code, 1)
            if index % 7 == 3 { key(code, 2) }
            key(code, 0)
            if shift { key(42, 0) }
        }
        key(suffix, 1)
        key(suffix, 0)
        return bytes
    }
}

@Suite("Scanning: evdev records of a HID scanner, fed byte by byte")
struct EvdevScanDecoderTests {
    static let seedJSON = #"{"actionName":"device_net_conn_bind_nb","actionData":{"id":"nb6f1c2a9e0b3d4c5e"}}"#

    static func decode(_ bytes: [UInt8], tab: Bool = false) -> [ScanRead] {
        var decoder = EvdevScanDecoder(keyMap: .us, endsWithTab: tab)
        var reads: [ScanRead] = []
        for byte in bytes {
            if let read = decoder.feed(byte) { reads.append(read) }
        }
        if let last = decoder.finish() { reads.append(last) }
        return reads
    }

    @Test("the seed's JSON typed with Shift for capitals, quotes, braces and colons decodes exactly")
    func seedJSON() {
        let bytes = EvdevRecording.typing(Self.seedJSON)
        #expect(bytes.count % EvdevScanDecoder.recordSize == 0)
        #expect(Self.decode(bytes) == [.payload(Self.seedJSON)])
    }

    @Test("every printable ASCII character of the US layout round-trips")
    func everyCharacter() {
        let all = String((0x20...0x7E).map { Character(Unicode.Scalar(UInt8($0))) })
        #expect(Self.decode(EvdevRecording.typing(all)) == [.payload(all)])
    }

    @Test("several scans in one stream, Tab as the suffix when asked, keypad Enter too")
    func severalScans() {
        let stream =
            EvdevRecording.typing("https://nbgw.local/l/AB12")
            + EvdevRecording.typing("MT:-24J042C00KA0648G00", suffix: 96)
            + EvdevRecording.typing("second", suffix: 15)
        #expect(
            Self.decode(stream, tab: true) == [
                .payload("https://nbgw.local/l/AB12"), .payload("MT:-24J042C00KA0648G00"), .payload("second"),
            ]
        )
    }

    @Test("Caps Lock inverts letters only; a key the map lacks rejects that scan and the next one reads")
    func capsLockAndUnknownKeys() {
        var bytes: [UInt8] = []
        var time: Int64 = 0
        func key(_ code: UInt16) {
            time += 1
            bytes += EvdevRecording.record(1, code, 1, time: time)
            bytes += EvdevRecording.record(1, code, 0, time: time)
        }
        key(58)  // Caps Lock on
        key(30)  // a → A
        key(2)  // 1 stays 1
        key(58)  // off
        key(30)
        key(28)
        key(30)
        key(183)  // KEY_F13: not in the map
        key(28)
        key(48)  // b
        key(28)
        #expect(
            Self.decode(bytes) == [
                .payload("A1a"), .rejected(ScanRejection(.unknownKey(183))), .payload("b"),
            ]
        )
    }

    @Test("a record split anywhere, and events other than keys, change nothing")
    func splitRecords() {
        let bytes = EvdevRecording.typing("nb01") + EvdevRecording.record(17, 1, 1, time: 5)  // an EV_LED record
        for cut in [1, 5, 23, 25, 47] {
            var decoder = EvdevScanDecoder()
            var reads: [ScanRead] = []
            for chunk in stride(from: 0, to: bytes.count, by: cut).map({ bytes[$0..<min($0 + cut, bytes.count)] }) {
                for byte in chunk { if let read = decoder.feed(byte) { reads.append(read) } }
            }
            #expect(reads == [.payload("nb01")], "chunks of \(cut)")
        }
    }
}
