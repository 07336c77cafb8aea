import DeviceIdentity
import NBGWCore
import Pairing
import TuyaCloud

/// The API's pure rules, shared by every store: what a request may carry, what a label says, and
/// which refusal a pairing token's state means. Stores apply them; none decides differently.
public enum CloudServerRules {
    /// Nil when a registration is well-formed; else the refusal (1109) naming the field.
    public static func problem(in request: CloudAPI.RegisterRequest) -> CloudServerFailure? {
        // Exactly as sent: the identity types trim whitespace, the profile does not.
        guard (try? IMEI(request.imei))?.digits == request.imei else {
            return .invalid("imei \(request.imei.escapedForDisplay()) is not 15 digits with a valid Luhn check digit")
        }
        if let imsi = request.imsi, (try? IMSI(imsi))?.digits != imsi {
            return .invalid("imsi must be 6 to 15 digits")
        }
        if let iccid = request.iccid, (try? ICCID(iccid))?.value != iccid.uppercased() {
            return .invalid("iccid must be 18 to 22 digits, optionally padded with F")
        }
        for (name, value, limit) in [
            ("manufacturer", request.manufacturer, 64), ("model", request.model, 64),
            ("firmware", request.firmware, 128), ("product_id", request.productID, 64),
        ] {
            // Unicode code points, as JSON Schema's maxLength counts.
            if let value, value.isEmpty || value.unicodeScalars.count > limit {
                return .invalid("\(name) must be 1 to \(limit) characters")
            }
            // Control characters never name a product: refused, and never stored (SQLite's
            // length() stops at a NUL, PostgreSQL refuses NUL in text: either would be a 500).
            if let value, value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                return .invalid("\(name) must not contain control characters")
            }
        }
        return nil
    }

    /// A proposed device id the cloud may keep (else it mints one).
    public static func acceptableDeviceID(_ proposed: String?) -> String? {
        proposed.flatMap { try? DeviceID($0).rawValue }
    }

    /// A proposed label code the cloud may keep: 4 to 64 ASCII letters and digits.
    public static func acceptableLabelCode(_ proposed: String?) -> String? {
        proposed.flatMap { code in (4...64).contains(code.utf8.count) && code.utf8.allSatisfy(isAlphanumeric) ? code : nil }
    }

    /// A device id the cloud mints: `nb` and 18 lower-case letters or digits.
    public static func mintDeviceID() -> String {
        "nb" + randomCode(18, alphabet: "abcdefghijklmnopqrstuvwxyz0123456789")
    }

    /// A label code the cloud mints: 12 of Crockford's base 32 (no I, L, O, U: read aloud safely).
    public static func mintLabelCode() -> String {
        randomCode(12, alphabet: "0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    }

    /// A pairing token: 20 letters and digits (119 bits).
    public static func mintPairingToken() -> String {
        randomCode(20, alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
    }

    /// Nil when a pairing-token request is well-formed; else the refusal.
    public static func problem(in request: CloudAPI.PairingTokenRequest) -> CloudServerFailure? {
        guard request.pairingType == CloudAPI.nbPairingType else {
            return .invalid("pairing_type must be \(CloudAPI.nbPairingType)")
        }
        guard isName(request.assetID), isName(request.uid) else {
            return .invalid("asset_id and uid must be 1 to 64 printable characters")
        }
        return nil
    }

    /// The refusal of a home that belongs to another account (3006).
    public static let homeOfAnotherAccount = CloudServerFailure(
        TuyaErrorCode.homeAccessDenied,
        "home access denied: the home belongs to another account"
    )

    /// The state of a pairing token as a bind finds it.
    public struct PairingTokenState: Sendable {
        public var home: String
        public var uid: String
        public var expiresAt: Int64
        public var used: Bool

        public init(home: String, uid: String, expiresAt: Int64, used: Bool) {
            self.home = home
            self.uid = uid
            self.expiresAt = expiresAt
            self.used = used
        }
    }

    /// Why a bind cannot use a token (nil: it can): unknown or for another home or account (3004),
    /// already used or expired (3003).
    public static func tokenRefusal(
        _ token: PairingTokenState?,
        for request: CloudAPI.BindRequest,
        now: Int64
    ) -> CloudServerFailure? {
        guard let token else {
            return CloudServerFailure(TuyaErrorCode.pairingTokenInvalid, "pairing token invalid: unknown token")
        }
        guard token.home == request.assetID, token.uid == request.uid else {
            return CloudServerFailure(
                TuyaErrorCode.pairingTokenInvalid,
                "pairing token invalid: issued for another home or account"
            )
        }
        if token.used {
            return CloudServerFailure(TuyaErrorCode.pairingTokenExpired, "pairing token expired: already used")
        }
        guard now <= token.expiresAt else {
            return CloudServerFailure(TuyaErrorCode.pairingTokenExpired, "pairing token expired")
        }
        return nil
    }

    /// The refusal of a device the cloud does not know.
    public static let unknownDevice = CloudServerFailure(TuyaErrorCode.deviceNotExist, "device not exist")

    /// The refusal of a device bound to someone else, as far as the asker may know: within a
    /// tenant the owner's account and gateway are named (the gateway's operator can act on them),
    /// across tenants nothing is (which devices exist elsewhere is not theirs to learn).
    public static func alreadyBound(ownerUID: String? = nil, ownerGateway: String? = nil) -> CloudServerFailure {
        guard let ownerUID else {
            return CloudServerFailure(
                TuyaErrorCode.deviceAlreadyBound,
                "device already bound: strong binding, the owner must unbind it first"
            )
        }
        // Unquoted: accounts are names without control characters (``isName(_:)``) and gateway
        // names are `[A-Za-z0-9._-]`; a client that shows the message escapes it once, itself.
        let through = ownerGateway.map { " through gateway \($0)" } ?? ""
        return CloudServerFailure(
            TuyaErrorCode.deviceAlreadyBound,
            "device already bound: to account \(ownerUID)\(through); "
                + "strong binding, the owner must unbind it first"
        )
    }

    /// The label code in a scanned label of this cloud, or the refusal (QR not recognised).
    public static func labelCode(inScanned code: String, labelBase: String) -> Result<String, CloudServerFailure> {
        let text = code.trimmingASCIISpaces
        guard text.lowercased().hasPrefix(labelBase.lowercased()) else {
            return .failure(
                CloudServerFailure(
                    TuyaErrorCode.qrNotRecognized,
                    "QR_PROTOCOL_NOT_RECOGNIZED: not a label of this cloud"
                )
            )
        }
        var labelCode = String(text.dropFirst(labelBase.count))
        if let cut = labelCode.firstIndex(where: { $0 == "?" || $0 == "#" || $0 == "/" }) {
            labelCode = String(labelCode[..<cut])
        }
        return .success(labelCode)
    }

    /// A home (`asset_id`) or account (`uid`): 1 to 64 Unicode code points, none a C0 control
    /// character or DEL.
    public static func isName(_ text: String) -> Bool {
        (1...64).contains(text.unicodeScalars.count)
            && text.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F }
    }

    /// A device id as the profile spells it: 1 to 64 of `A-Z a-z 0-9 _ . -`.
    public static func isDeviceID(_ text: String) -> Bool {
        (try? DeviceID(text)) != nil
    }

    static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// `bytes` random bytes as lower-case hex (access and refresh tokens).
    public static func randomHex(_ bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for _ in 0..<bytes {
            let byte = UInt8.random(in: 0...255, using: &generator)
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func randomCode(_ length: Int, alphabet: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let letters = Array(alphabet.utf8)
        return String(decoding: (0..<length).map { _ in letters.randomElement(using: &generator)! }, as: UTF8.self)
    }
}

extension String {
    var trimmingASCIISpaces: String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" || first == "\n" || first == "\r" {
            text = text.dropFirst()
        }
        while let last = text.last, last == " " || last == "\t" || last == "\n" || last == "\r" {
            text = text.dropLast()
        }
        return String(text)
    }
}
