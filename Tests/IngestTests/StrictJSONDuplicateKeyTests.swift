import Foundation
import NBGWCore
import Testing

@testable import Ingest

/// A body that holds a key twice (`{"qr":"x","qr":"y"}`) means one thing to one parser and another
/// to the next (a proxy, a WAF): it is refused, on the fast path and on JSONDecoder's (security
/// review I6).
@Suite("Strict JSON: a key given twice is refused on every path")
struct StrictJSONDuplicateKeyTests {
    @Test("the scanner names the first key an object repeats, at any depth, escapes decoded")
    func scanner() {
        let cases: [(String, String?)] = [
            (#"{"qr":"x","qr":"y"}"#, "qr"),
            (#"{"qr":"x","q\u0072":"y"}"#, "qr"),
            (#"{"q\"r":1," q\"r":2,"q\"r":3}"#, "q\"r"),
            (#"{"caf\u00e9":1,"cafe\u0301":2}"#, "café"),
            (#"{"\ud83d\ude00":1,"😀":2}"#, "😀"),
            (#"{"a":{"id":"x","id":"y"}}"#, "a.id"),
            (#"{"items":[{"qr":1},{"qr":2,"qr":3}]}"#, "items[1].qr"),
            (#"[{"a":1},[{"b":1,"b":2}]]"#, "[1][0].b"),
            (#"{"a":[1,"}",{"x":"]"}],"a":2}"#, "a"),
            (#" { "a" : 1 , "b" : { } , "c" : [ ] , "a" : null } "#, "a"),
            // No repeat: keys of different objects, values that look like keys, nothing at all.
            (#"{"a":{"id":1},"b":{"id":1},"id":"id"}"#, nil),
            (#"{"qr":"x","QR":"y","qr ":"z"}"#, nil),
            (#"["a","a"]"#, nil),
            (#"{}"#, nil),
            ("", nil),
            // Not JSON: the parser words the error, not the scanner.
            (#"{"a":1,"a""#, nil),
            (#"{"a":1,"a":2"#, nil),
            (#"{"a":{"b":1,"b":2}"#, nil),
            (#"{"a":1,,"a":2}"#, nil),
            (#"{"a\x":1,"a\x":2}"#, nil),
            (#"{"a":1}"a":2}"#, nil),
        ]
        for (text, expected) in cases {
            #expect(JSONDuplicateKeys.first(in: text) == expected, "\(text)")
            // Every way in gives the same answer.
            #expect(JSONDuplicateKeys.first(in: Array(text.utf8)) == expected)
            #expect(JSONDuplicateKeys.first(in: Data(text.utf8)) == expected)
        }
        // Invalid UTF-8 in a key is not a key: nil, not two U+FFFD that look equal.
        let invalid: [UInt8] =
            Array(#"{""#.utf8) + [0xC3, 0x28] + Array(#"":1,""#.utf8) + [0xC3, 0x29]
            + Array(#"":2}"#.utf8)
        #expect(JSONDuplicateKeys.first(in: invalid) == nil)
    }

    @Test("nesting a hundred thousand deep is scanned without recursion")
    func deepNesting() {
        let deep = String(repeating: "[", count: 100_000) + #"{"a":1,"a":2}"# + String(repeating: "]", count: 100_000)
        #expect(JSONDuplicateKeys.first(in: deep)?.hasSuffix("[0].a") == true)
        let unclosed = String(repeating: "{\"k\":", count: 100_000)
        #expect(JSONDuplicateKeys.first(in: unclosed) == nil)
    }

    @Test("decode, its fast path and JSONDecoder's path all refuse a repeated key with INVALID_ARGUMENT naming it")
    func everyPath() throws {
        let bodies: [(String, String)] = [
            // The fast path's shape: a flat object of strings.
            (#"{"qr":"x","qr":"y","account":"alice","home":"lab"}"#, "qr"),
            (#"{"qr":"x","account":"alice","home":"lab","q\u0072":"y"}"#, "qr"),
            (#"{"qr":"x","account":"alice","home":"lab","token":null,"token":"AAAAAAAAAA"}"#, "token"),
            // Only JSONDecoder's path: a value that is not a string.
            (#"{"qr":"x","account":"alice","home":"lab","home":1}"#, "home"),
            (#"{"qr":"x","account":"alice","home":"lab","admin":{"a":1,"a":2}}"#, "admin.a"),
        ]
        for (body, key) in bodies {
            let data = Data(body.utf8)
            #expect(StrictJSON.flatObject(data) == nil, "the fast path must not take \(body)")
            for outcome in [
                IngestJSONTests.Outcome { try StrictJSON.decode(IngestAPI.BindRequest.self, from: data) },
                IngestJSONTests.Outcome { try StrictJSON.decodeWithFoundation(IngestAPI.BindRequest.self, from: data) },
                IngestJSONTests.Outcome { try StrictJSON.decode(IngestAPI.ParseRequest.self, from: data) },
                IngestJSONTests.Outcome {
                    try StrictJSON.decodeWithFoundation(IngestAPI.ParseRequest.self, from: data)
                },
            ] {
                guard case .error(let error) = outcome else {
                    Issue.record("\(body) was accepted: \(outcome)")
                    continue
                }
                #expect(error.status == 400 && error.code == "INVALID_ARGUMENT", "\(body): \(error)")
                #expect(error.message.contains("\"\(key)\" twice"), "\(body): \(error.message)")
            }
        }
    }

    @Test("the running API answers 400 INVALID_ARGUMENT to a repeated field and binds nothing")
    func overHTTP() async throws {
        let fixture = try await IngestFixture(devices: 2)
        try await fixture.withServer { client in
            let headers = fixture.headers()
            let parse = try await client.call(.post, "/v1/qr/parse", headers: headers, body: #"{"qr":"x","qr":"y"}"#)
            #expect(parse.status == 400 && parse.code == "INVALID_ARGUMENT", "\(parse.body)")
            #expect(parse.message?.contains("\"qr\" twice") == true, "\(parse.body)")
            let bind = try await client.call(
                .post,
                "/v1/bindings",
                headers: headers,
                body: #"{"qr":"\#(fixture.labels[0])","account":"alice","home":"lab","qr":"\#(fixture.labels[1])"}"#
            )
            #expect(bind.status == 400 && bind.code == "INVALID_ARGUMENT", "\(bind.body)")
        }
        #expect(try fixture.registry.bindings.list().isEmpty)
    }
}
