import Cloud
import DeviceIdentity
import Foundation
import Hummingbird
import Logging
import NBGWCore
import Pairing
import Provisioning
import Registry

/// The route handlers. Each validates its input completely before touching the store; binds go
/// through ``BindingService`` (the one code path the CLI, CSV batches and the daemon use) with
/// `source: .http` and the API key's name as the operator.
struct IngestHandlers: Sendable {
    let registry: Registry
    let cloud: any CloudService
    let service: BindingService
    let configuration: IngestConfiguration
    let logger: Logger

    // MARK: QR

    func parse(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        let body = try await StrictJSON.decode(IngestAPI.ParseRequest.self, from: request, limit: limit)
        var payload = try IngestHandlers.parseOffline(body.qr)
        // Only a label (and, for a label it never saw, the cloud) or an IMEI needs the store, as in
        // `nbgw qr parse`.
        switch payload {
        case .label, .imei: payload = try await service.resolve(payload, budget: configuration.bindTimeout)
        case .nbBind, .matter: break
        }
        switch payload {
        case .nbBind(let nb): return try IngestJSON.response(QRParseReport(nb))
        case .matter(let matter): return try IngestJSON.response(QRParseReport(matter))
        case .imei: return try IngestJSON.response(QRParseReport(payload))
        case .label(let label):
            throw NBGWError(.qrProtocolNotRecognized, "label \(label.url.escapedForDisplay()) was not resolved")
        }
    }

    // MARK: Bindings

    func bind(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        let body = try await StrictJSON.decode(IngestAPI.BindRequest.self, from: request, limit: limit)
        let payload = try IngestHandlers.parseOffline(body.qr)
        if case .matter = payload { throw NBGWError.matterIsNotNB }
        try Registry.validateEntityName(body.account, what: "account name")
        try Registry.validateEntityName(body.home, what: "home name")
        if let token = body.token { try IngestHandlers.validateToken(token) }
        let key = context.apiKeyName ?? "unknown"
        let result: CloudBindOutcome
        do {
            result = try await service.bind(
                payload,
                account: body.account,
                home: body.home,
                token: body.token,
                source: .http,
                operator: key,
                ingest: BindCommand.IngestOrigin(apiKey: key, clientAddress: context.clientAddress),
                timeout: configuration.bindTimeout
            )
        } catch {
            // A refusal inside the store wrote its trail row with its audit row, in one transaction.
            // Only a label that does not resolve is refused before the store: its row is written here.
            if error.code != .timeout, error.code != .storeUnavailable, case .label = payload,
                await !resolves(body.qr)
            {
                record(
                    .init(
                        kind: .bindRejected,
                        apiKey: key,
                        clientAddress: context.clientAddress,
                        account: body.account,
                        home: body.home,
                        token: body.token,
                        code: error.code.rawValue,
                        message: error.message
                    )
                )
            }
            throw error
        }
        let outcome = result.outcome
        let binding = outcome.binding
        return IngestJSON.bindResponse(
            IngestAPI.BindResponse(
                status: outcome.status.rawValue,
                deviceId: binding.deviceID,
                imei: binding.imei,
                account: binding.account,
                home: binding.home,
                boundAt: binding.boundAt,
                source: binding.source.rawValue,
                operator: binding.operator,
                cloudSync: result.syncState,
                cloudMessage: result.syncMessage
            ),
            status: outcome.status == .bound ? .created : .ok
        )
    }

    func unbind(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        let deviceID = try IngestHandlers.deviceID(context.parameters.get("deviceId"))
        let key = context.apiKeyName ?? "unknown"
        let result: CloudUnbindOutcome
        do {
            result = try await service.unbind(deviceID: deviceID.rawValue, source: .http, operator: key)
        } catch {
            if error.code == .notBound || error.code == .unknownDevice {
                record(
                    .init(
                        kind: .unbindRejected,
                        apiKey: key,
                        clientAddress: context.clientAddress,
                        deviceID: deviceID.rawValue,
                        code: error.code.rawValue,
                        message: error.message
                    )
                )
            }
            throw error
        }
        record(
            .init(
                kind: .unbind,
                apiKey: key,
                clientAddress: context.clientAddress,
                deviceID: deviceID.rawValue,
                account: result.binding.account,
                home: result.binding.home
            )
        )
        return try IngestJSON.response(
            IngestAPI.UnbindResponse(
                status: "unbound",
                deviceId: result.binding.deviceID,
                account: result.binding.account,
                home: result.binding.home,
                cloudSync: result.syncState,
                cloudMessage: result.syncMessage
            )
        )
    }

    func listBindings(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        let query = try IngestHandlers.query(request, allowed: ["account", "limit", "cursor"])
        let account = query["account"]
        if let account { try Registry.validateEntityName(account, what: "account name") }
        let limit = try IngestHandlers.pageLimit(query["limit"])
        let after = try IngestHandlers.decodeCursor(query["cursor"])
        if let account, try registry.directory.account(named: account) == nil {
            throw NBGWError(
                .unknownAccount,
                "no account \(account.escapedForDisplay()); add it with `nbgw accounts add`"
            )
        }
        let page = try registry.bindings.list(account: account, limit: limit + 1, after: after)
        let items = Array(page.prefix(limit))
        let next = page.count > limit ? items.last.map { IngestHandlers.encodeCursor($0.deviceID) } : nil
        return try IngestJSON.response(IngestAPI.BindingsPage(bindings: items, nextCursor: next))
    }

    // MARK: Pairing tokens

    func createToken(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        let raw = context.parameters.get("home") ?? ""
        guard let home = raw.removingPercentEncoding else {
            throw NBGWError(.invalidArgument, "home \(raw.escapedForDisplay()) is not valid percent-encoded UTF-8")
        }
        try Registry.validateEntityName(home, what: "home name")
        let data = Data(try await StrictJSON.body(request, limit: limit).readableBytesView)
        if !data.isEmpty { _ = try StrictJSON.decode(IngestAPI.EmptyRequest.self, from: data) }
        let key = context.apiKeyName ?? "unknown"
        let token = try registry.directory.createToken(
            home: home,
            operator: key,
            ingest: BindCommand.IngestOrigin(apiKey: key, clientAddress: context.clientAddress)
        )
        return try IngestJSON.response(
            IngestAPI.TokenResponse(token: token.token, home: token.home, expiresAt: token.expiresAt),
            status: .created
        )
    }

    func pairingResult(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        let token = context.parameters.get("token") ?? ""
        try IngestHandlers.validateToken(token)
        guard let result = try registry.audit.pairingResult(token: token) else {
            throw NBGWError(
                .tokenInvalid,
                "no such pairing token; create one with POST /v1/homes/{home}/pairing-tokens"
            )
        }
        let status =
            result.token.usedAt != nil
            ? "used" : (configuration.wallClock.now() >= result.token.expiresAt ? "expired" : "pending")
        return try IngestJSON.response(
            IngestAPI.PairingResultResponse(
                status: status,
                home: result.token.home,
                createdAt: result.token.createdAt,
                expiresAt: result.token.expiresAt,
                usedAt: result.token.usedAt,
                devices: result.binding.map { [$0] } ?? [],
                failures: result.failures.map {
                    .init(
                        at: $0.at,
                        deviceId: $0.deviceID,
                        account: $0.account,
                        home: $0.home,
                        code: $0.code ?? ErrorCode.internalError.rawValue,
                        message: $0.message
                    )
                }
            )
        )
    }

    // MARK: Devices and modems

    func device(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        let deviceID = try IngestHandlers.deviceID(context.parameters.get("deviceId"))
        guard let record = try registry.directory.device(id: deviceID.rawValue) else {
            throw NBGWError(
                .unknownDevice,
                "device \(deviceID.rawValue) is not registered; register the module first (`nbgw devices register`)"
            )
        }
        return try IngestJSON.response(
            IngestAPI.DeviceResponse(
                device: record,
                qr: service.labelPayload(for: record),
                binding: try registry.bindings.find(deviceID: record.deviceID),
                audit: try registry.audit.entries(deviceID: record.deviceID),
                ingest: try registry.audit.ingestTrail(deviceID: record.deviceID)
            )
        )
    }

    /// The registered devices, each with the daemon's live view from its modem table (state, port,
    /// signal, last answer), or `state: unknown` when the daemon never saw it.
    func modems(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        let query = try IngestHandlers.query(request, allowed: ["limit", "cursor"])
        let limit = try IngestHandlers.pageLimit(query["limit"])
        let after = try IngestHandlers.decodeCursor(query["cursor"])
        let page = try registry.directory.devices(limit: limit + 1, after: after)
        // The daemon's modem table (one row per IMEI) gives the live state; a registered device the
        // daemon has never seen stays `unknown`.
        let live = Dictionary(
            try registry.modems.all().compactMap { row in row.imei.map { ($0, row) } },
            uniquingKeysWith: { first, _ in first }
        )
        let items = page.prefix(limit).map {
            IngestAPI.Modem(
                deviceId: $0.deviceID,
                imei: $0.imei,
                manufacturer: $0.manufacturer,
                model: $0.model,
                firmware: $0.firmware,
                state: live[$0.imei]?.state ?? "unknown",
                port: live[$0.imei]?.port,
                signalDbm: live[$0.imei]?.signal.summaryDBm,
                lastSeen: live[$0.imei]?.lastSeen
            )
        }
        let next = page.count > limit ? items.last.map { IngestHandlers.encodeCursor($0.deviceId) } : nil
        return try IngestJSON.response(IngestAPI.ModemsPage(modems: items, source: "registry", nextCursor: next))
    }

    /// Authenticated, rate-limited, body read and discarded: the benchmark's baseline.
    func noop(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        _ = try await StrictJSON.body(request, limit: limit)
        return try IngestJSON.response(["status": "ok"])
    }

    // MARK: Helpers

    var limit: Int { configuration.maxBodyBytes }

    /// True when `qr` resolves to an NB-IoT device now (used only on the error path of a bind).
    func resolves(_ qr: String) async -> Bool {
        if case .nbBind? = try? await service.parse(qr) { return true }
        return false
    }

    /// Writes the ingest trail row of a change that did not write it itself (unbinds, binds refused
    /// before the store); a failure is logged, never turned into a failed request (the change itself
    /// has committed with its audit row).
    func record(_ event: Registry.IngestEvent) {
        do {
            try registry.audit.recordIngest(event)
        } catch {
            logger.error(
                "could not record the ingest trail row",
                metadata: [
                    "event": "\(event.kind.rawValue)", "device": "\(event.deviceID ?? "-")", "error": "\(error)",
                ]
            )
        }
    }

    /// Parses without the store: malformed payloads never reach it.
    static func parseOffline(_ qr: String) throws(NBGWError) -> QRPayload {
        guard qr.utf8.count <= 4096 else {
            throw NBGWError(.invalidQR, "the QR payload is \(qr.utf8.count) bytes, over 4096; rescan the label")
        }
        return try QRPayloadParser.parse(qr)
    }

    static func validateToken(_ token: String) throws(NBGWError) {
        guard (8...64).contains(token.utf8.count),
            token.utf8.allSatisfy({ (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) })
        else {
            throw NBGWError(
                .invalidArgument,
                "pairing token \(token.escapedForDisplay(limit: 16)) is malformed (8 to 64 letters and digits); "
                    + "create one with POST /v1/homes/{home}/pairing-tokens"
            )
        }
    }

    static func deviceID(_ text: String?) throws(NBGWError) -> DeviceID {
        do {
            return try DeviceID(text ?? "")
        } catch {
            throw NBGWError(
                .invalidArgument,
                "device id \((text ?? "").escapedForDisplay()) is malformed: 1 to 64 characters of A-Z, a-z, 0-9, "
                    + "'_', '.' or '-'"
            )
        }
    }

    /// The query's items; unknown or repeated parameters are refused (strictness as for bodies).
    ///
    /// Decoded as HTML forms and browsers encode them (`application/x-www-form-urlencoded`): `+`
    /// is a space, then percent-decoding, which must give UTF-8. Why not Hummingbird's
    /// `queryParameters`: it keeps `+`, so `account=a+b` (how Python's and Java's URL encoders
    /// write "a b") would name another account, and it passes malformed escapes through raw.
    static func query(_ request: Request, allowed: Set<String>) throws(NBGWError) -> [String: String] {
        var result: [String: String] = [:]
        for item in (request.uri.query ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = formDecode(parts[0]), let value = formDecode(parts.count > 1 ? parts[1] : "") else {
                throw NBGWError(
                    .invalidArgument,
                    "query item \(String(item).escapedForDisplay()) is not valid percent-encoded UTF-8"
                )
            }
            guard allowed.contains(name) else {
                throw NBGWError(
                    .invalidArgument,
                    "unknown query parameter \(name.escapedForDisplay()); allowed: \(allowed.sorted().joined(separator: ", "))"
                )
            }
            guard result[name] == nil else {
                throw NBGWError(.invalidArgument, "query parameter \(name) given twice")
            }
            result[name] = value
        }
        return result
    }

    /// `+` as a space, then `%XX` escapes; nil for a malformed escape or bytes that are not UTF-8.
    static func formDecode(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        func hex(_ byte: UInt8?) -> UInt8? {
            switch byte {
            case let byte? where (0x30...0x39).contains(byte): byte - 0x30
            case let byte? where (0x41...0x46).contains(byte): byte - 0x41 + 10
            case let byte? where (0x61...0x66).contains(byte): byte - 0x61 + 10
            default: nil
            }
        }
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(0x20)
            case UInt8(ascii: "%"):
                guard let high = hex(iterator.next()), let low = hex(iterator.next()) else { return nil }
                bytes.append(high << 4 | low)
            default: bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    static func pageLimit(_ text: String?) throws(NBGWError) -> Int {
        guard let text else { return 100 }
        guard let value = Int(text), (1...1000).contains(value) else {
            throw NBGWError(.invalidArgument, "limit \(text.escapedForDisplay()) must be an integer from 1 to 1000")
        }
        return value
    }

    /// Cursors are opaque to clients; today a cursor is the last device id of the previous page
    /// (keyset paging), so every string the spec's pattern allows is a valid position.
    static func encodeCursor(_ deviceID: String) -> String {
        deviceID
    }

    /// The keyset position of `cursor` ("" for the first page, when there is none).
    static func decodeCursor(_ cursor: String?) throws(NBGWError) -> String {
        guard let cursor else { return "" }
        guard (try? DeviceID(cursor)) != nil else {
            throw NBGWError(
                .invalidArgument,
                "cursor \(cursor.escapedForDisplay(limit: 16)) is malformed; pass the nextCursor of the previous page "
                    + "unchanged"
            )
        }
        return cursor
    }
}
