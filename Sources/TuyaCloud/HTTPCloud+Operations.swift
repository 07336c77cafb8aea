import Cloud
import DeviceIdentity
import Foundation
import NBGWCore

/// The cloud calls themselves: what the end-to-end flow (register → parse → token → bind →
/// pairing result → unbind) uses directly, and what ``Cloud/CloudService`` is built on. The public
/// forms throw ``Pairing/NBGWError``; the internal forms keep ``TuyaCloudError``, which tells
/// transient from permanent failures.
///
/// A state-changing call made here without an idempotency key is tried once: a retry could act
/// twice. Work that must get through goes through the caller's outbox, which keys every row.
extension HTTPCloud {
    /// The cloud's QR parse (§1.1): `{action_name, action_data}` for a label this cloud issued;
    /// `QR_PROTOCOL_NOT_RECOGNIZED` for anything else.
    public func parseQR(_ code: String) async throws(NBGWError) -> CloudAPI.QRParseResult {
        try await nbgw { () async throws(TuyaCloudError) in try await requestParseQR(code, policy: nil) }
    }

    /// A pairing token for `account`'s `home` (§1.3): 10 minutes, single use.
    ///
    /// - Parameter key: the idempotency key; without one the call is tried once.
    public func createPairingToken(
        home: String,
        account: String,
        key: String? = nil
    ) async throws(NBGWError) -> CloudPairingToken {
        try await nbgw { () async throws(TuyaCloudError) in
            try await requestPairingToken(home: home, account: account, key: key, policy: key == nil ? .noRetries : nil)
        }
    }

    /// Strong-binds a registered device to `account`'s `home` with a pairing token of that home.
    public func bindInCloud(
        deviceID: String,
        account: String,
        home: String,
        token: String,
        key: String? = nil
    ) async throws(NBGWError) -> CloudAPI.BindResult {
        try await nbgw { () async throws(TuyaCloudError) in
            try await requestBind(
                deviceID: deviceID,
                account: account,
                home: home,
                token: token,
                key: key,
                policy: key == nil ? .noRetries : nil
            )
        }
    }

    /// The pairing result of a token (§1.3): devices bound with it and devices refused, with codes.
    public func pairingResult(token: String) async throws(NBGWError) -> CloudAPI.PairingResult {
        try await nbgw { () async throws(TuyaCloudError) in
            let path = try HTTPCloud.pathSegment(token, what: "pairing token")
            return try await client.perform(
                TuyaOpenAPIClient.Call(
                    method: "GET",
                    path: CloudAPI.pairingResultPath(path),
                    operation: "query the pairing result of a token",
                    logPath: CloudAPI.pairingResultPath("<token>")
                )
            )
        }
    }

    /// Removes a device's binding in the cloud.
    public func unbindInCloud(deviceID: String, key: String? = nil) async throws(NBGWError) -> CloudAPI.UnbindResult {
        try await nbgw { () async throws(TuyaCloudError) in
            try await requestUnbind(deviceID: deviceID, key: key, policy: key == nil ? .noRetries : nil)
        }
    }

    /// Every module registered in the cloud (all pages).
    public func cloudModules() async throws(NBGWError) -> [CloudAPI.Module] {
        try await nbgw { () async throws(TuyaCloudError) in
            try await allPages(CloudAPI.modulesPath, operation: "list the cloud's modules")
        }
    }

    /// Every binding the cloud holds (all pages).
    public func cloudBindings() async throws(NBGWError) -> [CloudAPI.Binding] {
        try await nbgw { () async throws(TuyaCloudError) in
            try await allPages(CloudAPI.bindingsPath, operation: "list the cloud's bindings")
        }
    }

    /// The fleet cloud's events after `cursor` (nil: from the start), waiting up to `wait`
    /// seconds for one when there is none; keep `wait` under the request timeout.
    public func cloudEvents(after cursor: String?, limit: Int = 100, wait: Int = 0) async throws(NBGWError)
        -> CloudAPI.EventPage
    {
        try await nbgw { () async throws(TuyaCloudError) in
            var query: [(name: String, value: String)] = [("limit", String(limit)), ("wait", String(wait))]
            if let cursor { query.append(("after", try HTTPCloud.pathSegment(cursor, what: "the event cursor"))) }
            return try await client.perform(
                TuyaOpenAPIClient.Call(
                    method: "GET",
                    path: CloudAPI.eventsPath,
                    query: query,
                    operation: "read the cloud's events",
                    logPath: CloudAPI.eventsPath
                )
            )
        }
    }

    // MARK: Typed calls

    func requestParseQR(_ code: String, policy: RetryPolicy?) async throws(TuyaCloudError) -> CloudAPI.QRParseResult {
        try await client.perform(
            try call(
                "POST",
                CloudAPI.qrParsePath,
                body: CloudAPI.QRParseRequest(code: code),
                operation: "parse QR \(code.escapedForDisplay(limit: 48))"
            ),
            policy: policy
        )
    }

    func requestRegister(
        _ request: CloudAPI.RegisterRequest,
        key: String,
        policy: RetryPolicy?
    ) async throws(TuyaCloudError) -> CloudAPI.RegisterResult {
        try await client.perform(
            try call("POST", CloudAPI.modulesPath, body: request, key: key, operation: "register IMEI \(request.imei)"),
            policy: policy
        )
    }

    func requestPairingToken(
        home: String,
        account: String,
        key: String?,
        policy: RetryPolicy?
    ) async throws(TuyaCloudError) -> CloudPairingToken {
        let requested = client.wallClock.now()
        let result: CloudAPI.PairingTokenResult = try await client.perform(
            try call(
                "POST",
                CloudAPI.pairingTokenPath,
                body: CloudAPI.PairingTokenRequest(assetID: home, uid: account),
                key: key,
                operation: "create a pairing token for home \(home.escapedForDisplay())"
            ),
            policy: policy
        )
        return CloudPairingToken(
            token: result.token,
            home: home,
            account: account,
            expiresAt: requested.addingTimeInterval(TimeInterval(result.expireTime))
        )
    }

    func requestBind(
        deviceID: String,
        account: String,
        home: String,
        token: String,
        key: String?,
        policy: RetryPolicy?
    ) async throws(TuyaCloudError) -> CloudAPI.BindResult {
        try await client.perform(
            try call(
                "POST",
                CloudAPI.bindPath,
                body: CloudAPI.BindRequest(deviceID: deviceID, assetID: home, uid: account, token: token),
                key: key,
                operation: "bind device \(deviceID.escapedForDisplay()) to home \(home.escapedForDisplay())"
            ),
            policy: policy
        )
    }

    func requestUnbind(
        deviceID: String,
        key: String?,
        policy: RetryPolicy?
    ) async throws(TuyaCloudError)
        -> CloudAPI.UnbindResult
    {
        let segment = try HTTPCloud.pathSegment(deviceID, what: "device id")
        return try await client.perform(
            TuyaOpenAPIClient.Call(
                method: "DELETE",
                path: CloudAPI.bindingPath(segment),
                idempotencyKey: key,
                operation: "unbind device \(deviceID)",
                logPath: CloudAPI.bindingPath(segment)
            ),
            policy: policy
        )
    }

    func allPages<Item: Codable & Sendable & Equatable>(
        _ path: String,
        operation: String
    ) async throws(TuyaCloudError) -> [Item] {
        var items: [Item] = []
        var lastRowKey: String?
        // Why a cap: a cloud that always answers `has_more` must not keep us paging forever.
        for _ in 0..<10_000 {
            var query: [(name: String, value: String)] = [("page_size", String(CloudAPI.pageSize))]
            if let lastRowKey {
                query.append(("last_row_key", try HTTPCloud.pathSegment(lastRowKey, what: "last_row_key")))
            }
            let page: CloudAPI.Page<Item> = try await client.perform(
                TuyaOpenAPIClient.Call(
                    method: "GET",
                    path: path,
                    query: query,
                    operation: operation,
                    logPath: path
                )
            )
            items += page.list
            guard page.hasMore, let next = page.lastRowKey, next != lastRowKey else { return items }
            lastRowKey = next
        }
        return items
    }

    // MARK: Helpers

    /// A call with a JSON body (and, for state-changing calls, an idempotency key).
    func call<Body: Encodable>(
        _ method: String,
        _ path: String,
        body: Body,
        key: String? = nil,
        operation: String
    ) throws(TuyaCloudError) -> TuyaOpenAPIClient.Call {
        let bytes: [UInt8]
        do {
            bytes = try CloudJSON.encode(body)
        } catch {
            throw TuyaCloudError(
                .configuration("cannot encode the request body: \(error)"),
                operation: operation,
                endpoint: "\(method) \(configuration.baseURL)\(path)"
            )
        }
        return TuyaOpenAPIClient.Call(
            method: method,
            path: path,
            body: bytes,
            idempotencyKey: key,
            operation: operation,
            logPath: path
        )
    }

    /// Text that goes into a path or query: only unreserved URL characters, so the signed and the
    /// sent URL are the same bytes (the signature covers the URL unencoded).
    static func pathSegment(_ text: String, what: String) throws(TuyaCloudError) -> String {
        guard (1...128).contains(text.utf8.count),
            text.utf8.allSatisfy({ byte in
                CloudCredentials.isAlphanumeric(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                    || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "~")
            })
        else {
            throw TuyaCloudError(
                .configuration("\(what) \(text.escapedForDisplay()) contains characters a URL cannot carry unencoded"),
                operation: "build a cloud request",
                endpoint: "-"
            )
        }
        return text
    }

    /// Runs a typed cloud call and maps its failure to the operator-facing error.
    func nbgw<Result>(_ body: () async throws(TuyaCloudError) -> Result) async throws(NBGWError) -> Result {
        do {
            return try await body()
        } catch {
            throw error.nbgwError
        }
    }
}
