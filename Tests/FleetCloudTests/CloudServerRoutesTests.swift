import Testing
import TuyaCloud

@testable import CloudServer

/// The route table's byte matcher (the fast path every request takes twice) against the
/// segment-by-segment reading it replaced (the full path): the same answer on every template for
/// paths built from the templates' own pieces, placeholders filled or left empty, and noise.
@Suite("Cloud server: route matching")
struct CloudServerRoutesTests {
    /// The reading the matcher replaced: split both on `/`, same number of segments, `{name}`
    /// matches any non-empty segment, the rest byte for byte.
    static func oracle(_ template: String, _ path: String) -> Bool {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        let parts = template.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        return parts.count == segments.count
            && zip(parts, segments).allSatisfy { $0.hasPrefix("{") ? !$1.isEmpty : $0 == $1 }
    }

    @Test("The byte matcher agrees with the split reading on every template and 20,000 generated paths")
    func byteMatcherAgreesWithTheSplitReading() {
        var generator = SplitMix64(seed: 0x5eed)
        let templates = CloudServerRoutes.api.map(\.path) + ["/admin/faults", "/admin/stats"]
        let pieces = ["", "x", "nb123", "{", "}", "/", "//", ".", "transfer", "logs", "devices", "%2F", "é"]
        for _ in 0..<20_000 {
            let template = templates[Int(generator.next() % UInt64(templates.count))]
            var path = ""
            for part in template.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
                let roll = generator.next() % 10
                let piece = pieces[Int(generator.next() % UInt64(pieces.count))]
                path += "/" + (part.hasPrefix("{") || roll == 0 ? piece : String(part))
                if roll == 1 { path += piece }
            }
            if generator.next() % 8 == 0 { path += "/" + pieces[Int(generator.next() % UInt64(pieces.count))] }
            for candidate in templates {
                #expect(
                    CloudServerRoutes.matches(candidate, path) == Self.oracle(candidate, path),
                    "template \(candidate), path \(path)"
                )
            }
        }
    }

    @Test("Routes name their templates: literal segments win over a placeholder")
    func templatesPreferLiteralSegments() {
        #expect(
            CloudServerRoutes.template(of: "/v1.0/iot-03/devices/nb1/logs") == CloudAPI.deviceLogsPath("{device_id}")
        )
        #expect(CloudServerRoutes.template(of: "/v1.0/iot-03/devices/nb1") == CloudAPI.devicePath("{device_id}"))
        #expect(CloudServerRoutes.template(of: "/v1.0/token/abc") == CloudAPI.refreshTokenPath("{refresh_token}"))
        #expect(CloudServerRoutes.template(of: "/v1.0/token") == CloudAPI.tokenPath)
        #expect(CloudServerRoutes.template(of: "/v1.0/iot-03/devices/") == nil)
    }

    struct SplitMix64 {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
