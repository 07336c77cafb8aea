import DeviceIdentity
import Foundation
import Testing

@testable import Registry

@Suite("Outbox payloads and keys: one encoder, one generator")
struct OutboxPayloadTests {
    @Test("Every payload reads back as written, for every operation")
    func roundTrip() throws {
        let payloads: [OutboxPayload] = [
            .register(
                .init(
                    identity: ModuleIdentity(imei: try IMEI("490154203237518"), model: "BC66", firmware: "R01/A02"),
                    proposedDeviceID: "nb0123456789abcdefgh",
                    proposedLabelCode: "ABCDEFGH1234"
                )
            ),
            .bind(.init(deviceID: "nb0123456789abcdefgh", account: "alice \"the\" owner\\", home: "lab/1 ⌂\n")),
            .unbind(.init(deviceID: "nb0123456789abcdefgh", account: nil, home: nil)),
        ]
        for payload in payloads {
            #expect(try OutboxPayload.decode(operation: payload.operation, json: payload.json) == payload)
        }
    }

    @Test("Rows written before the outbox owned its encoder (SQL json_object in batches, the cloud client) read back")
    func olderRowsReadBack() throws {
        // What Registry+Batch wrote with json_object('account', …, 'deviceID', …, 'home', …).
        let batch = #"{"account":"alice","deviceID":"nb0123456789abcdefgh","home":"lab"}"#
        #expect(
            try OutboxPayload.decode(operation: .bind, json: batch)
                == .bind(.init(deviceID: "nb0123456789abcdefgh", account: "alice", home: "lab"))
        )
        #expect(
            OutboxPayload.bind(.init(deviceID: "nb0123456789abcdefgh", account: "alice", home: "lab")).json == batch
        )
        let unbind = #"{"deviceID":"nb0123456789abcdefgh"}"#
        #expect(
            try OutboxPayload.decode(operation: .unbind, json: unbind)
                == .unbind(.init(deviceID: "nb0123456789abcdefgh", account: nil, home: nil))
        )
    }

    @Test("A payload that does not match its operation is an error, not a guess")
    func mismatchIsAnError() {
        #expect(throws: (any Error).self) {
            try OutboxPayload.decode(operation: .bind, json: #"{"deviceID":"nb0123456789abcdefgh"}"#)
        }
        #expect(throws: (any Error).self) { try OutboxPayload.decode(operation: .register, json: "[]") }
    }

    @Test("Keys are nbgw- and 26 lower-case Crockford characters, and differ")
    func keys() {
        let alphabet = Set("0123456789abcdefghjkmnpqrstvwxyz")
        var seen = Set<String>()
        for _ in 0..<2000 {
            let key = IdempotencyKey.make()
            #expect(key.hasPrefix("nbgw-") && key.count == 31)
            #expect(key.dropFirst(5).allSatisfy(alphabet.contains))
            seen.insert(key)
        }
        #expect(seen.count == 2000)
    }

    @Test("Each 5-bit character of a key comes from the generator's bits, all 32 values reachable")
    func keyBitsCoverTheAlphabet() {
        // A generator counting up: 64-bit draws whose low bits walk through every 5-bit value.
        struct Counting: RandomNumberGenerator {
            var value: UInt64 = 0
            mutating func next() -> UInt64 {
                defer { value &+= 0x0421_0842_1084_2108 }
                return value
            }
        }
        var generator = Counting()
        var used = Set<Character>()
        for _ in 0..<64 { used.formUnion(IdempotencyKey.make(using: &generator).dropFirst(5)) }
        #expect(used.count == 32)
    }
}
