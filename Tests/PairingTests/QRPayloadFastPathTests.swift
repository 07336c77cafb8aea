import Testing

@testable import Pairing

@Suite("QR parser fast path agrees with the full parser")
struct QRPayloadFastPathTests {
    static let inputs: [String] = [
        "https://nbgw.local/d/CTAH5CGRC05Y",
        "http://nbgw.local/d/CTAH5CGRC05Y",
        "https://nbgw.local:8443/d/CTAH5CGRC05Y",
        "https://nbgw.local/CTAH",
        "https://a.b.c/x/y/z/Code_-1",
        "https://nbgw.local/d/CTA",  // code too short: full parser decides
        "https://nbgw.local/d/",
        "https://nbgw.local//d/CODE1",
        "https://NBGW.local/d/CODE1",
        "https://nbgw.local/d/CODE1?x=1",
        "https://nbgw.local/d/CODE1#frag",
        "https://nbgw.local/d/CO%41E1",
        "https://user@nbgw.local/d/CODE1",
        "https://nbgw.local:0/d/CODE1",
        "https://nbgw.local:080/d/CODE1",
        "https://nbgw.local/d.x/~y/CODE1",
        #"{"actionName":"device_net_conn_bind_nb","actionData":{"id":"nbowpzs009e7f974a5rk"}}"#,
        #"{"actionName":"device_net_conn_bind_nb","actionData":{"id":"a"}}"#,
        #"{"actionName":"device_net_conn_bind_nb","actionData":{"id":""}}"#,
        #"{"actionName":"device_net_conn_bind_nb","actionData":{"id":"a\"b"}}"#,
        #"{"actionName":"device_net_conn_bind_nb","actionData":{"id":"a\\b"}}"#,
        #"{"actionName":"device_net_conn_bind_nb","actionData":{"id":"x"},"y":1}"#,
        #"{"actionName":"device_net_conn_bind_ble","actionData":{"id":"x"}}"#,
        // JSON whitespace between tokens: json.dumps' spaces, pretty printing, CR LF, around the whole.
        #"{"actionName": "device_net_conn_bind_nb", "actionData": {"id": "nbowpzs009e7f974a5rk"}}"#,
        "{\n\t\"actionName\": \"device_net_conn_bind_nb\",\n\t\"actionData\": {\n\t\t\"id\": \"nbowpzs009e7f974a5rk\"\n\t}\n}",
        "{\r\n  \"actionName\" : \"device_net_conn_bind_nb\" ,\r\n  \"actionData\" : { \"id\" : \"nbx\" }\r\n}\r\n",
        "  \t{\"actionName\":\"device_net_conn_bind_nb\",\"actionData\":{\"id\":\"nbx\"}}\n",
        // Whitespace where JSON allows none, or of a kind only trimming knows.
        #"{"actionName":"device_net_conn_bind_nb","actionData":{"id":" nbx"}}"#,
        #"{"actionName":"device_net_conn_bind_nb","actionData":{"id":"nbx "}}"#,
        "{\"actionName\":\"device_net_conn_bind_nb\",\"actionData\":{\"id\":\"nb\tx\"}}",
        "{\"actionName\":\"device_net_conn_bind_nb\",\"actionData\":{\"id\":\"nb\nx\"}}",
        "{\"action Name\":\"device_net_conn_bind_nb\",\"actionData\":{\"id\":\"nbx\"}}",
        "\u{0B}{\"actionName\":\"device_net_conn_bind_nb\",\"actionData\":{\"id\":\"nbx\"}}",
        "{\"actionName\":\u{0C}\"device_net_conn_bind_nb\",\"actionData\":{\"id\":\"nbx\"}}",
        "{\"actionName\":\"device_net_conn_bind_nb\",\"actionData\":{\"id\":\"nbx\"}}\u{A0}",
        "hello-world",
        "MT:-24J042C00KA0648G00",
    ]

    /// Canonical JSON but for a repeated key: the fast path must decline them all, and the full
    /// parser refuse them (QRPayloadDuplicateKeyTests).
    static let duplicateKeys: [String] = [
        #"{"actionName":"device_net_conn_bind_nb","actionData":{"id":"nbaaaaaaaa","id":"nbbbbbbbbb"}}"#,
        #"{"actionName":"device_net_conn_bind_nb","actionData":{"id":"nbaaaaaaaa"},"actionData":{"id":"nbb"}}"#,
        #"{"actionName":"device_net_conn_bind_nb","actionName":"x","actionData":{"id":"nbaaaaaaaa"}}"#,
    ]

    @Test(
        "Whenever the fast path answers, the full parser gives the same payload",
        arguments: inputs + duplicateKeys
    )
    func agreement(_ text: String) {
        guard let fast = QRPayloadParser.fastParse(text) else { return }
        #expect((try? QRPayloadParser.fullParse(text)) == fast)
    }

    /// The parse-result JSON cut at its token boundaries (where JSON allows whitespace).
    static let jsonTokens = [
        "{", #""actionName""#, ":", #""device_net_conn_bind_nb""#, ",", #""actionData""#, ":", "{", #""id""#, ":",
        #""nbowpzs009e7f974a5rk""#, "}", "}",
    ]

    @Test("On 20,000 JSON payloads with whitespace of every kind between, around and inside tokens, both agree")
    func agreementOnGeneratedWhitespace() {
        // JSON's own whitespace, whitespace only trimming removes (VT, FF, NEL, NBSP) and a
        // control character; sometimes inside a token rather than between two.
        let blanks = [" ", "\t", "\n", "\r", "\r\n", "  ", "\u{0B}", "\u{0C}", "\u{85}", "\u{A0}", "\u{01}"]
        var random = MatterTestRandom(seed: 0x5EED_0DD5)
        var taken = 0
        for _ in 0..<20_000 {
            var text = ""
            for (index, token) in Self.jsonTokens.enumerated() {
                if random.next(in: 0...2) == 0 { text += blanks[random.next(in: 0...(blanks.count - 1))] }
                if random.next(in: 0...40) == 0, token.count > 2 {
                    let cut = token.index(token.startIndex, offsetBy: random.next(in: 1...(token.count - 1)))
                    text += token[..<cut] + blanks[random.next(in: 0...(blanks.count - 1))] + token[cut...]
                } else {
                    text += token
                }
                if index == Self.jsonTokens.count - 1, random.next(in: 0...2) == 0 {
                    text += blanks[random.next(in: 0...(blanks.count - 1))]
                }
            }
            guard let fast = QRPayloadParser.fastParse(text) else { continue }
            taken += 1
            #expect((try? QRPayloadParser.fullParse(text)) == fast, "\(text.debugDescription)")
        }
        #expect(taken > 1_000, "the fast path took \(taken) of 20,000")
    }

    @Test("The fast path takes the shapes a batch meets most")
    func coverage() {
        #expect(QRPayloadParser.fastParse("https://nbgw.local/d/CTAH5CGRC05Y") != nil)
        #expect(QRPayloadParser.fastParse(Self.inputs[16]) != nil)
        let compact = QRPayloadParser.fastParse(Self.inputs[16])
        for spaced in Self.inputs[23...26] {
            #expect(QRPayloadParser.fastParse(spaced) != nil, "\(spaced.debugDescription)")
        }
        #expect(QRPayloadParser.fastParse(Self.inputs[23]) == compact)
        #expect(QRPayloadParser.fastParse("https://nbgw.local/d/CODE1?x=1") == nil)
        #expect(QRPayloadParser.fastParse(" https://nbgw.local/d/CTAH5CGRC05Y") == nil)
    }
}
