import Testing

@testable import KiiCloud

@Suite("A Kii module's stored credential: the token, and the thing's id when it is not the device id")
struct KiiThingCredentialTests {
    @Test("A thing whose id is the device id is stored as its token alone, and read back")
    func plainToken() throws {
        let credential = KiiThingCredential(thingID: "th.1234-abcd", token: "tok-0123456789")
        #expect(credential.stored(deviceID: "th.1234-abcd") == "tok-0123456789")
        #expect(KiiThingCredential(stored: "tok-0123456789", deviceID: "th.1234-abcd") == credential)
    }

    @Test("A thing behind another device id is stored with its id, and read back")
    func mapped() throws {
        let credential = KiiThingCredential(thingID: "th.1234-abcd", token: "tok-0123456789")
        let stored = credential.stored(deviceID: "nblocalonly000000000")
        #expect(stored == "kii-thing=th.1234-abcd tok-0123456789")
        #expect(KiiThingCredential(stored: stored, deviceID: "nblocalonly000000000") == credential)
    }

    @Test("Nothing stored, or a mapping without its token, is no credential")
    func malformed() {
        #expect(KiiThingCredential(stored: nil, deviceID: "d") == nil)
        #expect(KiiThingCredential(stored: "", deviceID: "d") == nil)
        #expect(KiiThingCredential(stored: "kii-thing=th.1", deviceID: "d") == nil)
        #expect(KiiThingCredential(stored: "kii-thing= tok", deviceID: "d") == nil)
        #expect(KiiThingCredential(stored: "kii-thing=th.1 ", deviceID: "d") == nil)
    }
}
