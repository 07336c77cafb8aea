import Foundation

/// Kii's REST shapes this adapter uses (docs/cloud.md, "Kii Thing-IF: what nbgw relies on"):
/// Thing-IF onboarding under `{site}/thing-if`, things, ownership and users under `{site}/api`.
enum KiiAPI {
    /// Onboarding a thing by its vendor thing id, on behalf of an owner. Kii's SDKs spell the
    /// subtype both with an upper- and a lower-case `o`; media types compare without case.
    static let onboardingMediaType = "application/vnd.kii.onboardingWithVendorThingIDByOwner+json"
    /// Adding an owner to a thing.
    static let ownershipRequestMediaType = "application/vnd.kii.ThingOwnershipRequest+json"

    static func onboardings(_ appID: String) -> String { "/thing-if/apps/\(appID)/onboardings" }

    static func thing(_ appID: String, vendorThingID: String) -> String {
        "/api/apps/\(appID)/things/VENDOR_THING_ID:\(vendorThingID)"
    }

    static func ownership(_ appID: String, thingID: String) -> String {
        "/api/apps/\(appID)/things/\(thingID)/ownership"
    }

    static func userOwnership(_ appID: String, thingID: String, userID: String) -> String {
        "/api/apps/\(appID)/things/\(thingID)/ownership/user:\(userID)"
    }

    static func user(_ appID: String, loginName: String) -> String {
        "/api/apps/\(appID)/users/LOGIN_NAME:\(pathSegment(loginName))"
    }

    static func user(_ appID: String, userID: String) -> String { "/api/apps/\(appID)/users/\(userID)" }

    /// RFC 3986's unreserved characters.
    static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
    )

    /// A name as one path segment: unreserved characters stay, everything else is percent-encoded.
    static func pathSegment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    struct OnboardingRequest: Encodable {
        var vendorThingID: String
        var thingPassword: String
        var owner: String
        var thingType: String
        var thingProperties: [String: String]
        var layoutPosition = "STANDALONE"
    }

    struct OnboardingResponse: Decodable {
        var thingID: String
        var accessToken: String
    }

    /// A thing as `GET …/things/VENDOR_THING_ID:{id}` answers (Kii's fields start with `_`).
    struct Thing: Decodable {
        var thingID: String
        var vendorThingID: String

        enum CodingKeys: String, CodingKey {
            case thingID = "_thingID"
            case vendorThingID = "_vendorThingID"
        }
    }

    struct User: Decodable {
        var userID: String
        var loginName: String?
    }

    /// A thing's owners: user ids and group ids.
    struct Owners: Decodable {
        var users: [String]?
        var groups: [String]?
    }

    /// `thingPassword` when nbgw holds the thing's password: an app with
    /// `requirePasswordForThingOwnership` refuses an owner added without it (docs/cloud.md).
    struct OwnershipRequest: Encodable {
        var userID: String
        var thingPassword: String?
    }

    /// Kii's error body: `{"errorCode": "THING_NOT_FOUND", "message": "…"}`.
    struct ErrorBody: Decodable {
        var errorCode: String?
        var message: String?
    }

    static func encode<Value: Encodable>(_ value: Value) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Why `try!`: these request types hold strings only, which always encode.
        return Array(try! encoder.encode(value))
    }
}
