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
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        return
            routes
            .map(\.path)
            .filter { template in
                let parts = template.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
                return parts.count == segments.count
                    && zip(parts, segments).allSatisfy { $0.hasPrefix("{") ? !$1.isEmpty : $0 == $1 }
            }
            .min { $0.filter { $0 == "{" }.count < $1.filter { $0 == "{" }.count }
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
