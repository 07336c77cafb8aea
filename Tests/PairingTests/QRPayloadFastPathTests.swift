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

    @Test("The fast path takes the shapes a batch meets most")
    func coverage() {
        #expect(QRPayloadParser.fastParse("https://nbgw.local/d/CTAH5CGRC05Y") != nil)
        #expect(QRPayloadParser.fastParse(Self.inputs[16]) != nil)
        #expect(QRPayloadParser.fastParse("https://nbgw.local/d/CODE1?x=1") == nil)
        #expect(QRPayloadParser.fastParse(" https://nbgw.local/d/CTAH5CGRC05Y") == nil)
    }
}
