import TuyaCloud

/// Every route the emulator serves (docs/cloud-api.yaml lists exactly these), for the 404 and 405
/// answers: a path no route has is 404 (code 1108); a served path with another method is 405 with
/// an `Allow` header (RFC 9110 §15.5.6) listing the methods it takes.
enum EmulatorRoutes {
    /// Method and OpenAPI path; `{name}` matches one non-empty segment.
    static let all: [(method: String, path: String)] = [
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
        ("GET", "/admin/faults"),
        ("PUT", "/admin/faults"),
        ("GET", "/admin/stats"),
    ]

    private static let templates: [(method: String, segments: [Substring])] = all.map { route in
        let segments = route.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        return (route.method, segments.map { $0.hasPrefix("{") ? "" : $0 })
    }

    /// What the route table says about `method` on `path`.
    enum Match: Equatable {
        case served
        case notFound
        case methodNotAllowed(allow: [String])
    }

    static func match(method: String, path: String) -> Match {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        let matching = templates.filter { template in
            template.segments.count == segments.count
                && zip(template.segments, segments).allSatisfy { $0.isEmpty ? !$1.isEmpty : $0 == $1 }
        }
        if matching.isEmpty { return .notFound }
        if matching.contains(where: { $0.method == method }) { return .served }
        return .methodNotAllowed(allow: matching.map(\.method))
    }
}
