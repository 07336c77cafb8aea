import Cloud
import Testing
import TuyaCloud

/// Tuya's published signing examples (pairing-anchors §1.4 "Test vectors"), reproduced exactly.
@Suite("Signing: Tuya's published vectors and the string to sign")
struct TuyaSignerTests {
    static let signer = TuyaSigner(clientID: "1KAD46OrT9HafiKdsXeg", secret: "4OHBOnWOqaEC1mWXOpVL3yV50s0qGSRC")
    static let t = "1588925778000"
    static let nonce = "5138cc3a9033d69856923fd07b491173"
    static let accessToken = "3f4eda2bdec17232f67c0b188af3eec1"
    static let signedHeaders: [(name: String, value: String)] = [
        ("area_id", "29a33e8796834b1efa6"), ("call_id", "8afdb70ab2ed11eb85290242ac130003"),
    ]

    @Test("V1, token request: the published stringToSign and sign")
    func tokenRequestVector() {
        let url = TuyaSigner.canonicalURL(path: "/v1.0/token", query: [("grant_type", "1")])
        let stringToSign = TuyaSigner.stringToSign(method: "GET", body: [], signedHeaders: Self.signedHeaders, url: url)
        #expect(
            stringToSign
                == "GET\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
                + "area_id:29a33e8796834b1efa6\ncall_id:8afdb70ab2ed11eb85290242ac130003\n"
                + "\n/v1.0/token?grant_type=1"
        )
        let sign = Self.signer.sign(accessToken: nil, t: Self.t, nonce: Self.nonce, stringToSign: stringToSign)
        #expect(sign == "9E48A3E93B302EEECC803C7241985D0A34EB944F40FB573C7B5C2A82158AF13E")
    }

    @Test("V2, business request: query sorted by key even when built the other way round")
    func businessRequestVector() {
        let url = TuyaSigner.canonicalURL(
            path: "/v2.0/apps/schema/users",
            query: [("page_size", "50"), ("page_no", "1")]
        )
        #expect(url == "/v2.0/apps/schema/users?page_no=1&page_size=50")
        let stringToSign = TuyaSigner.stringToSign(method: "get", body: [], signedHeaders: Self.signedHeaders, url: url)
        let sign = Self.signer.sign(
            accessToken: Self.accessToken,
            t: Self.t,
            nonce: Self.nonce,
            stringToSign: stringToSign
        )
        #expect(sign == "AE4481C692AA80B25F3A7E12C3A5FD9BBF6251539DD78E565A1A72A508A88784")
    }

    @Test("The headers of a signed request carry the same sign, and access_token only on business calls")
    func headersMatchTheVector() {
        let headers = Self.signer.headers(
            method: "GET",
            url: "/v1.0/token?grant_type=1",
            body: [],
            accessToken: nil,
            t: 1_588_925_778_000,
            nonce: Self.nonce,
            extraSignedHeaders: Self.signedHeaders
        )
        let byName = Dictionary(headers.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        #expect(byName["sign"] == "9E48A3E93B302EEECC803C7241985D0A34EB944F40FB573C7B5C2A82158AF13E")
        #expect(byName["sign_method"] == "HMAC-SHA256")
        #expect(byName["t"] == Self.t)
        #expect(byName["Signature-Headers"] == "area_id:call_id")
        #expect(byName["area_id"] == "29a33e8796834b1efa6")
        #expect(byName["access_token"] == nil)

        let business = Self.signer.headers(
            method: "GET",
            url: "/v2.0/apps/schema/users?page_no=1&page_size=50",
            body: [],
            accessToken: Self.accessToken,
            t: 1_588_925_778_000,
            nonce: Self.nonce,
            extraSignedHeaders: Self.signedHeaders
        )
        #expect(business.contains { $0.name == "access_token" && $0.value == Self.accessToken })
        #expect(
            business.contains {
                $0.name == "sign" && $0.value == "AE4481C692AA80B25F3A7E12C3A5FD9BBF6251539DD78E565A1A72A508A88784"
            }
        )
    }

    @Test("The body hash covers the exact bytes; no query means no question mark")
    func bodyHashAndBareURL() {
        #expect(TuyaSigner.contentSHA256([]) == TuyaSigner.emptyBodySHA256)
        #expect(
            TuyaSigner.contentSHA256(Array("{\"code\":\"x\"}".utf8))
                != TuyaSigner.contentSHA256(Array("{\"code\": \"x\"}".utf8))
        )
        #expect(TuyaSigner.canonicalURL(path: "/v1.0/iot-03/nb-modules", query: []) == "/v1.0/iot-03/nb-modules")
        let toSign = TuyaSigner.stringToSign(method: "POST", body: [], signedHeaders: [], url: "/p")
        #expect(toSign == "POST\n\(TuyaSigner.emptyBodySHA256)\n\n/p")
    }

    @Test("Verification accepts lower-case hex and refuses any change to the signed text")
    func verification() {
        let toSign = TuyaSigner.stringToSign(
            method: "GET",
            body: [],
            signedHeaders: [],
            url: "/v1.0/token?grant_type=1"
        )
        let sign = Self.signer.sign(accessToken: nil, t: Self.t, nonce: Self.nonce, stringToSign: toSign)
        #expect(
            Self.signer.isValid(
                sign: sign.lowercased(),
                accessToken: nil,
                t: Self.t,
                nonce: Self.nonce,
                stringToSign: toSign
            )
        )
        #expect(
            !Self.signer.isValid(
                sign: sign,
                accessToken: nil,
                t: "1588925778001",
                nonce: Self.nonce,
                stringToSign: toSign
            )
        )
        #expect(!Self.signer.isValid(sign: sign, accessToken: "x", t: Self.t, nonce: Self.nonce, stringToSign: toSign))
        let other = TuyaSigner(clientID: "1KAD46OrT9HafiKdsXeg", secret: "wrong-secret-000000000000000000")
        #expect(!other.isValid(sign: sign, accessToken: nil, t: Self.t, nonce: Self.nonce, stringToSign: toSign))
    }

    @Test("Nonces are 32 hex digits and differ every time")
    func nonces() {
        let a = TuyaSigner.makeNonce()
        let b = TuyaSigner.makeNonce()
        #expect(a.count == 32 && b.count == 32 && a != b)
    }

    @Test("The secret never appears in descriptions or dumps")
    func secretIsRedacted() throws {
        let secret = "4OHBOnWOqaEC1mWXOpVL3yV50s0qGSRC"
        let credentials = try CloudCredentials(clientID: "1KAD46OrT9HafiKdsXeg", secret: secret)
        let configuration = try CloudConfiguration(baseURL: "https://openapi.tuyaeu.com", credentials: credentials)
        var dumped = ""
        dump(credentials, to: &dumped)
        dump(Self.signer, to: &dumped)
        for text in [
            "\(credentials)", String(reflecting: credentials), "\(Self.signer)", "\(configuration)",
            String(reflecting: configuration), dumped,
        ] {
            #expect(!text.contains(secret))
        }
        #expect("\(configuration)".contains("1KAD46OrT9HafiKdsXeg"))
    }
}
