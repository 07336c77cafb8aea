import NBGWCore
import Testing

@testable import Pairing

/// A QR's JSON that holds a key twice names one device to one reader and another to the next: it
/// is malformed, on the fast path and the full parser alike (security review I6).
@Suite("QR JSON with a repeated key is refused as malformed")
struct QRPayloadDuplicateKeyTests {
    @Test(
        "the fast path declines and the parser answers INVALID_QR naming the key",
        arguments: QRPayloadFastPathTests.duplicateKeys
    )
    func refused(_ text: String) {
        #expect(QRPayloadParser.fastParse(text) == nil)
        #expect {
            try QRPayloadParser.parse(text)
        } throws: { error in
            guard let error = error as? NBGWError else { return false }
            return error.code == .invalidQR && error.message.contains("twice")
                && (error.message.contains("\"actionData.id\"") || error.message.contains("\"actionData\"")
                    || error.message.contains("\"actionName\""))
        }
    }

    @Test("a cloud envelope and a URL's actionData JSON are checked too")
    func envelopeAndURL() {
        let envelope =
            #"{"result":{"actionName":"device_net_conn_bind_nb","actionData":{"id":"nbaaaaaaaa"}},"result":{}}"#
        #expect {
            try QRPayloadParser.parse(envelope)
        } throws: { ($0 as? NBGWError)?.code == .invalidQR && "\($0)".contains("\"result\"") }
        // actionData={"id":"nbaaaaaaaa","id":"nbbbbbbbbb"}, percent-encoded in the query.
        let url =
            "https://example.com/bind?actionName=device_net_conn_bind_nb&actionData="
            + "%7B%22id%22%3A%22nbaaaaaaaa%22%2C%22id%22%3A%22nbbbbbbbbb%22%7D"
        #expect {
            try QRPayloadParser.parse(url)
        } throws: { ($0 as? NBGWError)?.code == .invalidQR && "\($0)".contains("\"id\" twice") }
        // The same URL with one id still binds.
        let single =
            "https://example.com/bind?actionName=device_net_conn_bind_nb&actionData="
            + "%7B%22id%22%3A%22nbaaaaaaaa%22%7D"
        #expect((try? QRPayloadParser.parse(single)) != nil)
    }
}
