import TuyaCloud

/// Every route of the cloud API (docs/cloud-api.yaml lists exactly these), for the 404 and 405
/// answers: a path no route has is 404 (code 1108); a served path with another method is 405 with
/// an `Allow` header (RFC 9110 §15.5.6) listing the methods it takes. A server with routes of its
/// own (the emulator's `/admin/…`) matches against ``api`` plus those.
public enum CloudServerRoutes {
    /// Method and OpenAPI path; `{name}` matches one non-empty segment.
    public static let api: [(method: String, path: String)] = [
        ("GET", CloudAPI.tokenPath),
        ("GET", CloudAPI.refreshTokenPath("{refresh_token}")),
        ("POST", CloudAPI.modulesPath),
        ("GET", CloudAPI.modulesPath),
        ("POST", CloudAPI.qrParsePath),
        ("POST", CloudAPI.pairingTokenPath),
        ("POST", CloudAPI.bindPath),
        ("GET", CloudAPI.pairingResultPath("{token}")),
        ("GET", CloudAPI.bindingsPath),
        ("DELETE", CloudAPI.bindingPath("{device_id}")),
        ("GET", CloudAPI.eventsPath),
        ("POST", CloudAPI.batchPath),
        ("GET", CloudAPI.devicesPath),
        ("GET", CloudAPI.devicePath("{device_id}")),
        ("DELETE", CloudAPI.devicePath("{device_id}")),
        ("POST", CloudAPI.deviceTransferPath("{device_id}")),
        ("POST", CloudAPI.deviceFreezePath("{device_id}")),
        ("GET", CloudAPI.deviceLogsPath("{device_id}")),
        ("GET", CloudAPI.homeDevicesPath("{home}")),
    ]

    /// What the route table says about `method` on `path`.
    public enum Match: Equatable, Sendable {
        case served
        case notFound
        case methodNotAllowed(allow: [String])
    }

    /// The template of the route `path` is served by (literal segments preferred), for logs and
    /// metrics: tokens and ids in paths never reach them. Nil for a path no route has.
    public static func template(of path: String, in routes: [(method: String, path: String)] = api) -> String? {
        var best: String?
        var bestPlaceholders = Int.max
        for route in routes where matches(route.path, path) {
            let placeholders = route.path.utf8.count { $0 == UInt8(ascii: "{") }
            if placeholders < bestPlaceholders { (best, bestPlaceholders) = (route.path, placeholders) }
        }
        return best
    }

    /// Whether `path` has the segments of `template`, where `{name}` matches one non-empty segment.
    /// Why bytes, not `split`: every request asks twice (route and log), and splitting every
    /// template each time was 5 % of a capped node's CPU under `tools/bench-cloud.sh` (perf).
    static func matches(_ template: String, _ path: String) -> Bool {
        let slash = UInt8(ascii: "/")
        let (t, p) = (template.utf8, path.utf8)
        var (ti, pi) = (t.startIndex, p.startIndex)
        while ti < t.endIndex {
            if t[ti] == UInt8(ascii: "{") {
                while ti < t.endIndex && t[ti] != slash { ti = t.index(after: ti) }
                let start = pi
                while pi < p.endIndex && p[pi] != slash { pi = p.index(after: pi) }
                if start == pi { return false }
            } else {
                guard pi < p.endIndex, t[ti] == p[pi] else { return false }
                ti = t.index(after: ti)
                pi = p.index(after: pi)
            }
        }
        return pi == p.endIndex
    }

    public static func match(
        method: String,
        path: String,
        in routes: [(method: String, path: String)] = api
    ) -> Match {
        let matching = routes.filter { matches($0.path, path) }
        if matching.isEmpty { return .notFound }
        if matching.contains(where: { $0.method == method }) { return .served }
        return .methodNotAllowed(allow: matching.map(\.method))
    }
}
