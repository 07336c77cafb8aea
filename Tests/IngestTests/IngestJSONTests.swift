import Foundation
import Testing

@testable import Ingest

/// The hot path's hand-written JSON must say exactly what the general (Foundation) path says.
@Suite("Ingest JSON fast paths agree with JSONEncoder and JSONDecoder")
struct IngestJSONTests {
    static let tricky = [
        "plain", "", "quote \" and backslash \\ and slash /", "tab\there\nnewline\r\u{8}\u{C}",
        "\u{0}\u{1}\u{1F}\u{7F}", "é€😀 \u{2028}\u{2029}\u{FEFF}", "https://nbgw.local/d/CTAH5CGRC05Y",
    ]

    @Test("A bind response written by hand is byte for byte what JSONEncoder writes")
    func bindResponse() throws {
        var values: [IngestAPI.BindResponse] = []
        for (index, text) in IngestJSONTests.tricky.enumerated() {
            values.append(
                IngestAPI.BindResponse(
                    status: index.isMultiple(of: 2) ? "bound" : "unchanged",
                    deviceId: "nb\(index)",
                    imei: "490154203237518",
                    account: text,
                    home: "lab " + text,
                    boundAt: Date(timeIntervalSince1970: 1_790_000_000.123 + Double(index) * 86_400.007),
                    source: "http",
                    operator: index == 3 ? nil : text,
                    cloudSync: index.isMultiple(of: 3) ? nil : "queued",
                    cloudMessage: index.isMultiple(of: 3) ? nil : text
                )
            )
        }
        for value in values {
            let fast = IngestJSON.bindResponseBody(value)
            var expected = try IngestJSON.encode(value)
            expected.append(UInt8(ascii: "\n"))
            #expect(Array(fast.readableBytesView) == Array(expected), "\(String(decoding: expected, as: UTF8.self))")
        }
    }

    @Test("Timestamps print what Date.ISO8601FormatStyle prints, milliseconds included")
    func timestamps() {
        var generator = SystemRandomNumberGenerator()
        let fixed: [Int64] = [0, 1, 999, 1000, 86_399_999, 951_782_400_000, 1_709_251_199_999, 1_790_000_000_123]
        let random = (0..<20_000).map { _ in Int64.random(in: 0...4_102_444_800_000, using: &generator) }
        for millis in fixed + random {
            let date = Date(timeIntervalSince1970: Double(millis) / 1000)
            #expect(
                IngestJSON.timestamp(date) == date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)),
                "\(millis)"
            )
        }
    }

    @Test("Request bodies decode to the same request, or the same error, on both paths")
    func requests() throws {
        var bodies = [
            #"{"qr":"x","account":"alice","home":"lab"}"#,
            #"  {"home":"lab" , "account":"alice","qr":"x","token":"AAAAAAAAAA"} "#,
            #"{"qr":"x","account":"alice","home":"lab","token":null}"#,
            #"{"qr":"{\"actionName\":\"device_net_conn_bind_nb\",\"actionData\":{\"id\":\"nb1\"}}","account":"a","home":"h"}"#,
            #"{"qr":"\u00e9\u20ac\/\b\f\n\r\t\\","account":"a","home":"h"}"#,
            #"{"qr":"\ud83d\ude00","account":"a","home":"h"}"#,
            #"{"qr":"\ud83d","account":"a","home":"h"}"#,
            #"{"qr":"x","account":"alice"}"#,
            #"{"account":"alice"}"#,
            #"{"qr":null,"account":"alice","home":"lab"}"#,
            #"{"qr":1,"account":"alice","home":"lab"}"#,
            #"{"qr":"x","account":"alice","home":"lab","admin":true}"#,
            #"{"qr":"x","account":"alice","home":"lab","zeta":"z","admin":"a"}"#,
            #"{"qr":"x","qr":"y","account":"alice","home":"lab"}"#,
            #"{"qr":"x","account":"alice","home":"lab"} trailing"#,
            #"{"qr":"x","account":"alice","home":"lab",}"#,
            #"{"qr":"x" "account":"alice"}"#,
            #"{"qr":"bad \x escape","account":"a","home":"h"}"#,
            "{\"qr\":\"raw\ncontrol\",\"account\":\"a\",\"home\":\"h\"}",
            #"{"qr":"x","#, "[1,2]", "\"text\"", "{}", "null", "{\"qr\":",
        ]
        bodies.append("{\"qr\":\"\u{FF}\",\"account\":\"a\",\"home\":\"h\"}")
        var datas = bodies.map { Data($0.utf8) }
        datas.append(Data([0x7B, 0x22, 0x71, 0x72, 0x22, 0x3A, 0x22, 0xC3, 0x28, 0x22, 0x7D]))  // {"qr":"<bad UTF-8>"}
        for data in datas {
            let label = String(decoding: data, as: UTF8.self)
            let fast = Outcome { try StrictJSON.decode(IngestAPI.BindRequest.self, from: data) }
            let slow = Outcome { try StrictJSON.decodeWithFoundation(IngestAPI.BindRequest.self, from: data) }
            #expect(fast == slow, "\(label)")
            let parseFast = Outcome { try StrictJSON.decode(IngestAPI.ParseRequest.self, from: data) }
            let parseSlow = Outcome { try StrictJSON.decodeWithFoundation(IngestAPI.ParseRequest.self, from: data) }
            #expect(parseFast == parseSlow, "\(label)")
        }
        // The well-formed bodies really take the fast path.
        #expect(StrictJSON.flatObject(Data(bodies[0].utf8)) != nil)
        #expect(StrictJSON.flatObject(Data(bodies[4].utf8))?["qr"] == .some("é€/\u{8}\u{C}\n\r\t\\"))
    }

    /// A decoded request's fields, or the error's status, code and message.
    enum Outcome: Equatable {
        case request([String?])
        case error(IngestError)
        case other(String)

        init(_ body: () throws -> Any) {
            do {
                switch try body() {
                case let bind as IngestAPI.BindRequest: self = .request([bind.qr, bind.account, bind.home, bind.token])
                case let parse as IngestAPI.ParseRequest: self = .request([parse.qr])
                default: self = .other("unexpected type")
                }
            } catch let error as IngestError {
                self = .error(error)
            } catch {
                self = .other("\(error)")
            }
        }
    }
}
