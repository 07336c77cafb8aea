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
    ]

    /// What the route table says about `method` on `path`.
    public enum Match: Equatable, Sendable {
        case served
        case notFound
        case methodNotAllowed(allow: [String])
    }

    public static func match(
        method: String,
        path: String,
        in routes: [(method: String, path: String)] = api
    ) -> Match {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        let matching = routes.filter { route in
            let template = route.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
            return template.count == segments.count
                && zip(template, segments).allSatisfy { $0.hasPrefix("{") ? !$1.isEmpty : $0 == $1 }
        }
        if matching.isEmpty { return .notFound }
        if matching.contains(where: { $0.method == method }) { return .served }
        return .methodNotAllowed(allow: matching.map(\.method))
    }
}
