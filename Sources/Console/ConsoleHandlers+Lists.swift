import Foundation
import Hummingbird
import Ingest
import NBGWCore
import Provisioning
import Registry

extension ConsoleHandlers {
    typealias Cell = [String: Any]

    static func cell(_ text: String?, href: String? = nil) -> Cell {
        var cell: Cell = ["text": text ?? ""]
        if let href { cell["href"] = href }
        return cell
    }

    /// A list page: a search field, a table, previous/next links that keep the search.
    func listPage<Item>(
        _ request: Request,
        session: ConsoleSession,
        nav: String,
        title: String,
        noun: String,
        columns: [String],
        extra: [String: Any] = [:],
        fetch: (String, Int, Int) throws(NBGWError) -> Registry.Page<Item>,
        row: (Item) -> [Cell]
    ) throws -> Response {
        let query = query(request)
        let search = String((query["q"] ?? "").prefix(128))
        let offset = max(0, min(Int(query["offset"] ?? "") ?? 0, 10_000_000))
        let size = configuration.pageSize
        let page = try fetch(search, offset, size)
        func link(_ offset: Int) -> String {
            "/\(nav)?q=\(ConsoleForm.encode(search))&offset=\(offset)"
        }
        var values = extra
        values["path"] = "/\(nav)"
        values["noun"] = noun
        values["query"] = search
        values["columns"] = columns
        values["width"] = columns.count
        values["rows"] = page.items.map { ["cells": row($0)] }
        values["range"] =
            page.items.isEmpty ? "" : "\(offset + 1)–\(offset + page.items.count)"
        if offset > 0 { values["previous"] = link(max(0, offset - size)) }
        if page.hasMore { values["next"] = link(offset + size) }
        return self.page("list", title: title, nav: nav, session: session, values)
    }

    func devicesPage(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        let session = try session(request, context, role: .operator)
        return try listPage(
            request,
            session: session,
            nav: "devices",
            title: "Devices",
            noun: "devices (id, IMEI, model, label)",
            columns: ["Device", "IMEI", "Model", "Firmware", "Registered"],
            fetch: { (search, offset, limit) throws(NBGWError) in
                try registry.console.searchDevices(search, offset: offset, limit: limit)
            }
        ) { device in
            [
                Self.cell(device.deviceID, href: "/modems/\(ConsoleForm.encode(device.imei))"),
                Self.cell(device.imei), Self.cell(device.model), Self.cell(device.firmware),
                Self.cell(Self.date(device.registeredAt)),
            ]
        }
    }

    func bindingsPage(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        let session = try session(request, context, role: .operator)
        return try listPage(
            request,
            session: session,
            nav: "bindings",
            title: "Bindings",
            noun: "bindings (device, IMEI, account, home)",
            columns: ["Device", "IMEI", "Account", "Home", "Bound", "By", ""],
            fetch: { (search, offset, limit) throws(NBGWError) in
                try registry.console.searchBindings(search, offset: offset, limit: limit)
            }
        ) { binding in
            [
                Self.cell(binding.deviceID, href: "/modems/\(ConsoleForm.encode(binding.imei))"),
                Self.cell(binding.imei), Self.cell(binding.account), Self.cell(binding.home),
                Self.cell(Self.date(binding.boundAt)),
                Self.cell([binding.source.rawValue, binding.operator].compactMap { $0 }.joined(separator: " · ")),
                Self.cell("Unbind…", href: "/bindings/\(ConsoleForm.encode(binding.deviceID))/unbind"),
            ]
        }
    }

    func accountsPage(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        let session = try session(request, context, role: .operator)
        return try listPage(
            request,
            session: session,
            nav: "accounts",
            title: "Accounts",
            noun: "accounts",
            columns: ["Account", "Role", "Created"],
            fetch: { (search, offset, limit) throws(NBGWError) in
                try registry.console.searchAccounts(search, offset: offset, limit: limit)
            }
        ) { account in
            [
                Self.cell(account.name, href: "/bindings?q=\(ConsoleForm.encode(account.name))"),
                Self.cell(account.role.rawValue), Self.cell(Self.date(account.createdAt)),
            ]
        }
    }

    func homesPage(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        let session = try session(request, context, role: .operator)
        return try listPage(
            request,
            session: session,
            nav: "homes",
            title: "Homes",
            noun: "homes (name, owner)",
            columns: ["Home", "Owner", "Products", "Created", ""],
            fetch: { (search, offset, limit) throws(NBGWError) in
                try registry.console.searchHomes(search, offset: offset, limit: limit)
            }
        ) { home in
            [
                Self.cell(home.name, href: "/bindings?q=\(ConsoleForm.encode(home.name))"), Self.cell(home.owner),
                Self.cell(home.allowedProducts.isEmpty ? "any" : home.allowedProducts.joined(separator: ", ")),
                Self.cell(Self.date(home.createdAt)),
                Self.cell(
                    "Bind here",
                    href: "/bind?account=\(ConsoleForm.encode(home.owner))&home=\(ConsoleForm.encode(home.name))"
                ),
            ]
        }
    }

    func tokensPage(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        let session = try session(request, context, role: .binder)
        let now = Date()
        return try listPage(
            request,
            session: session,
            nav: "tokens",
            title: "Pairing tokens",
            noun: "tokens (home, token)",
            columns: ["Token", "Home", "Status", "Created", "Expires", "Device"],
            extra: [
                "create": [
                    "action": "/tokens", "label": "New token for home", "button": "Create token",
                    "homes": try registry.directory.homes().map { ["name": $0.name] },
                ]
            ],
            fetch: { (search, offset, limit) throws(NBGWError) in
                try registry.console.searchTokens(search, offset: offset, limit: limit)
            }
        ) { token in
            let status = token.usedAt != nil ? "used" : (token.expiresAt <= now ? "expired" : "pending")
            return [
                Self.cell(token.token, href: "/tokens/\(ConsoleForm.encode(token.token))"), Self.cell(token.home),
                Self.cell(status), Self.cell(Self.date(token.createdAt)), Self.cell(Self.date(token.expiresAt)),
                Self.cell(token.usedByDevice),
            ]
        }
    }

    /// `POST /tokens` (home): a new single-use token, shown on its result page.
    func createToken(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        let session = try session(request, context, role: .binder)
        let fields = try await form(request)
        try checkCSRF(request, session, form: fields)
        let home = fields["home"] ?? ""
        do {
            let token = try registry.directory.createToken(
                home: home,
                operator: session.operatorName,
                ingest: BindCommand.IngestOrigin(
                    apiKey: "console:" + String(session.operatorName.prefix(56)),
                    clientAddress: context.clientAddress
                )
            )
            audit("token_create", session, context, code: "OK", detail: "home \(home)")
            return ConsoleResponses.redirect(to: "/tokens/\(ConsoleForm.encode(token.token))")
        } catch {
            audit("token_create", session, context, code: error.code.rawValue, detail: error.message)
            throw error
        }
    }

    /// `GET /tokens/{token}`: the seed's "query pairing result".
    func tokenPage(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        let session = try session(request, context, role: .binder)
        let value = context.parameters.get("token") ?? ""
        guard let result = try registry.audit.pairingResult(token: value) else {
            throw ConsoleFailure.notFound("no pairing token \(value.escapedForDisplay())")
        }
        let token = result.token
        let status = token.usedAt != nil ? "used" : (token.expiresAt <= Date() ? "expired" : "pending")
        let facts: [[String: Any]] = [
            ["name": "Token", "value": token.token], ["name": "Home", "value": token.home],
            ["name": "Status", "value": status], ["name": "Created", "value": Self.date(token.createdAt)],
            ["name": "Expires", "value": Self.date(token.expiresAt)],
            ["name": "Used", "value": Self.date(token.usedAt)],
        ]
        let devices: [[String: Any]] =
            result.binding.map {
                [
                    [
                        "deviceId": $0.deviceID, "account": $0.account, "home": $0.home,
                        "href": "/modems/\(ConsoleForm.encode($0.imei))",
                    ]
                ]
            } ?? []
        let failures: [[String: Any]] = result.failures.map {
            [
                "at": Self.date($0.at), "deviceId": $0.deviceID ?? "", "code": $0.code ?? "",
                "message": $0.message ?? "",
            ]
        }
        return page(
            "token",
            title: "Pairing token",
            nav: "tokens",
            session: session,
            ["facts": facts, "devices": devices, "failures": failures]
        )
    }

    /// `GET /bindings/{deviceId}/unbind`: the confirmation.
    func unbindConfirm(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        let session = try session(request, context, role: .operator)
        let deviceID = context.parameters.get("deviceId") ?? ""
        guard let binding = try registry.bindings.find(deviceID: deviceID) else {
            throw ConsoleFailure.notFound("\(deviceID.escapedForDisplay()) is not bound")
        }
        return page(
            "confirm",
            title: "Unbind \(binding.deviceID)?",
            nav: "bindings",
            session: session,
            [
                "question": "Remove \(binding.deviceID) from \(binding.account) / \(binding.home)?",
                "facts": [
                    ["name": "Device", "value": binding.deviceID], ["name": "IMEI", "value": binding.imei],
                    ["name": "Account", "value": binding.account], ["name": "Home", "value": binding.home],
                    ["name": "Bound", "value": Self.date(binding.boundAt)],
                ],
                "action": "/bindings/\(ConsoleForm.encode(binding.deviceID))/unbind",
                "button": "Unbind", "cancel": "/bindings",
            ]
        )
    }

    /// `POST /bindings/{deviceId}/unbind`.
    func unbindSubmit(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        let session = try session(request, context, role: .operator)
        let fields = try await form(request)
        try checkCSRF(request, session, form: fields)
        let deviceID = context.parameters.get("deviceId") ?? ""
        var values: [String: Any] = ["back": "/bindings"]
        do {
            let outcome = try await service.unbind(deviceID: deviceID, source: .http, operator: session.operatorName)
            audit(
                "unbind",
                session,
                context,
                deviceID: deviceID,
                code: "OK",
                detail: "was \(outcome.binding.account)/\(outcome.binding.home)"
            )
            values.merge(
                Self.result(
                    status: "unbound",
                    code: "OK",
                    message: "\(deviceID) is no longer in \(outcome.binding.account) / \(outcome.binding.home).",
                    deviceID: deviceID
                )
            ) { $1 }
            return page("message", title: "Unbound", nav: "bindings", session: session, values)
        } catch {
            audit("unbind", session, context, deviceID: deviceID, code: error.code.rawValue, detail: error.message)
            values.merge(Self.result(status: "failed", code: error.code.rawValue, message: error.message)) { $1 }
            return page(
                "message",
                title: "Not unbound",
                nav: "bindings",
                session: session,
                values,
                status: .init(code: error.code.httpStatus)
            )
        }
    }
}
