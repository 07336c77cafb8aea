import DeviceIdentity
import NBGWCore
import Testing

@testable import Pairing

@Suite("QR payload parsing")
struct QRPayloadParserTests {
    static let id = "nbowpzs009e7f974a5rk"

    @Test(
        "NB bind actions are read from the parse-result JSON and from URLs",
        arguments: [
            (
                "{\"actionName\":\"device_net_conn_bind_nb\",\"actionData\":{\"id\":\"\(id)\"}}",
                NBBindPayload.Origin.json
            ),
            (
                " {\"actionData\": {\"id\": \"\(id)\", \"extra\": 1}, \"actionName\": \"device_net_conn_bind_nb\"}\r\n",
                .json
            ),
            (
                "{\"success\":true,\"result\":{\"actionName\":\"device_net_conn_bind_nb\",\"actionData\":{\"id\":\"\(id)\"}}}",
                .json
            ),
            ("https://example.com/qr?actionName=device_net_conn_bind_nb&id=\(id)", .url),
            ("HTTPS://example.com/x?action=device_net_conn_bind_nb&deviceId=\(id)&ref=7", .url),
            ("http://example.com/?actionName=device_net_conn_bind_nb&actionData=%7B%22id%22%3A%22\(id)%22%7D", .url),
        ]
    )
    func nbBind(_ text: String, _ origin: NBBindPayload.Origin) throws {
        let payload = try QRPayloadParser.parse(text)
        #expect(payload == .nbBind(NBBindPayload(deviceID: try DeviceID(Self.id), origin: origin)))
    }

    @Test("A URL without an action is a label reference split into base and code")
    func labelReference() throws {
        let payload = try QRPayloadParser.parse("https://NBGW.local/d/CTAH5CGRC05Y")
        #expect(
            payload
                == .label(
                    LabelReference(
                        url: "https://NBGW.local/d/CTAH5CGRC05Y",
                        base: "https://nbgw.local/d/",
                        code: "CTAH5CGRC05Y"
                    )
                )
        )
    }

    @Test("Matter QR codes and manual codes are dispatched to the Matter decoder")
    func matter() throws {
        guard case .matter(let qr) = try QRPayloadParser.parse("MT:-24J042C00KA0648G00") else {
            Issue.record("not matter")
            return
        }
        #expect(qr.passcode == 20_202_021)
        #expect(qr.discriminator == 3840)
        guard case .matter(let manual) = try QRPayloadParser.parse("3497-0112-332") else {
            Issue.record("not matter")
            return
        }
        #expect(manual.passcode == 20_202_021)
    }

    @Test(
        "Each kind of bad payload gets its own error code",
        arguments: [
            ("hello", ErrorCode.qrProtocolNotRecognized),
            ("", .qrProtocolNotRecognized),
            ("   \r\n", .qrProtocolNotRecognized),
            ("{\"actionName\":\"device_net_conn_bind_ble\",\"actionData\":{\"id\":\"abc\"}}", .notNBDevice),
            ("https://example.com/qr?actionName=device_wifi_ez&id=abc", .notNBDevice),
            ("{\"actionName\":\"device_net_conn_bind_nb\"}", .invalidQR),
            ("{\"actionName\":\"device_net_conn_bind_nb\",\"actionData\":{\"id\":\"a b\"}}", .invalidQR),
            ("{\"actionName\":\"device_net_conn_bind_nb\",", .invalidQR),
            ("{\"foo\":1}", .qrProtocolNotRecognized),
            ("[1,2]", .qrProtocolNotRecognized),
            ("https://example.com/qr?actionName=device_net_conn_bind_nb", .invalidQR),
            ("https://example.com/qr?id=abc", .qrProtocolNotRecognized),
            ("https://example.com/", .qrProtocolNotRecognized),
            ("https:///nohost", .invalidQR),
            ("MT:-24J042C00KA0648G0", .invalidQR),
            ("34970112333", .invalidQR),
            ("ftp://example.com/d/ABCDEFGH", .qrProtocolNotRecognized),
        ]
    )
    func errors(_ text: String, _ code: ErrorCode) {
        #expect(throws: NBGWError.self) { try QRPayloadParser.parse(text) }
        do {
            _ = try QRPayloadParser.parse(text)
        } catch {
            #expect(error.code == code, "\(error)")
        }
    }

    @Test(
        "Control characters and bidi overrides are rejected and never echoed raw",
        arguments: [
            "abc\u{1B}[31mred", "{\"actionName\":\"device_net_conn_bind_nb\u{0}\"}", "MT:\u{202E}abc", "a\u{85}b",
            "line1\nline2", "{\"actionName\":\"device_net_conn_bind_nb\",\"actionData\":{\"id\":\"nb\tx\"}}",
        ]
    )
    func controlCharacters(_ text: String) {
        do {
            _ = try QRPayloadParser.parse(text)
            Issue.record("accepted \(text.debugDescription)")
        } catch {
            #expect(error.code == .invalidQR)
            #expect(
                !error.message.unicodeScalars.contains {
                    $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0.value == 0x202E
                }
            )
        }
    }

    @Test("Payloads over the size cap are rejected before parsing")
    func sizeCap() {
        let big = "{\"actionName\":\"device_net_conn_bind_nb\",\"pad\":\"" + String(repeating: "x", count: 5000) + "\"}"
        do {
            _ = try QRPayloadParser.parse(big)
            Issue.record("accepted")
        } catch {
            #expect(error.code == .invalidQR)
            #expect(error.message.contains("4096"))
        }
    }

    @Test("Untrusted text is escaped and cut for display")
    func escaping() {
        #expect("a\"b\n\u{1B}".escapedForDisplay() == "\"a\\\"b\\n\\u{1b}\"")
        #expect(String(repeating: "y", count: 100).escapedForDisplay(limit: 4) == "\"yyyy…\"")
    }

    @Test("Every error code has a distinct exit code outside the reserved 0, 1 and 64")
    func exitCodesAreDistinct() {
        let codes = ErrorCode.allCases.map(\.exitCode)
        #expect(Set(codes).count == codes.count)
        #expect(!codes.contains(0) && !codes.contains(1) && !codes.contains(64))
    }

    @Test(
        "A module's IMEI, plain or IMEI:-prefixed, is a code of its own; a wrong check digit is INVALID_QR",
        arguments: ["490154203237518", "IMEI:490154203237518", "imei: 490154203237518", " 490154203237518\n"]
    )
    func imeiCodes(_ text: String) throws {
        #expect(try QRPayloadParser.parse(text) == .imei(try IMEI("490154203237518")))
    }

    @Test(
        "Digits that look like an IMEI but are not one are refused with the reason, or are not IMEIs at all",
        arguments: ["490154203237519", "IMEI:49015420323751", "IMEI:4901542032375180", "IMEI:49015420323751x"]
    )
    func notIMEIs(_ text: String) {
        do {
            _ = try QRPayloadParser.parse(text)
            Issue.record("accepted \(text.debugDescription)")
        } catch {
            #expect(error.code == .invalidQR, "\(error)")
            #expect(error.message.contains("IMEI"), "\(error.message)")
        }
    }
}
