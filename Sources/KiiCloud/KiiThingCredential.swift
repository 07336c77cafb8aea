/// What the store keeps as a Kii module's credential: the thing's access token, and the thing's id
/// when it is not the module's device id.
///
/// Why the id can differ: Kii assigns thing ids and cannot take one; a module the store knew
/// before Kii was configured (registered with another cloud, or queued while Kii was unreachable)
/// keeps the device id its labels, bindings and audit already use, and the adapter talks to Kii
/// about the thing behind it. The store treats the credential as one opaque secret.
struct KiiThingCredential: Equatable {
    /// The thing at Kii.
    var thingID: String
    /// The thing's access token (never logged).
    var token: String

    private static let prefix = "kii-thing="

    /// The stored text: the token alone when the thing id is the device id, else
    /// `kii-thing=THING_ID TOKEN` (a thing id has no space; a token has none either).
    func stored(deviceID: String) -> String {
        thingID == deviceID ? token : KiiThingCredential.prefix + thingID + " " + token
    }

    /// Reads a stored credential of the module with `deviceID`; nil without one.
    init?(stored text: String?, deviceID: String) {
        guard let text, !text.isEmpty else { return nil }
        guard text.hasPrefix(KiiThingCredential.prefix) else {
            self.init(thingID: deviceID, token: text)
            return
        }
        let rest = text.dropFirst(KiiThingCredential.prefix.count)
        guard let space = rest.firstIndex(of: " ") else { return nil }
        let thingID = String(rest[..<space])
        let token = String(rest[rest.index(after: space)...])
        guard !thingID.isEmpty, !token.isEmpty else { return nil }
        self.init(thingID: thingID, token: token)
    }

    init(thingID: String, token: String) {
        self.thingID = thingID
        self.token = token
    }
}
