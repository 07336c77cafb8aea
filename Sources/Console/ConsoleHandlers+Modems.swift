import Foundation
import Hummingbird
import Ingest
import NBGWCore
import Registry

extension ConsoleHandlers {
    /// One modem as the table shows it (the columns of `nbgw modems`).
    func modemRow(_ modem: ModemRecord) -> [String: Any] {
        var row: [String: Any] = [
            "state": modem.state,
            "reason": modem.reason.map { "\($0.code): \($0.message)" } ?? "",
            "imei": modem.imei ?? "",
            "model": modem.model ?? "",
            "port": modem.port,
            "signal": modem.signal.summaryDBm.map { "\($0) dBm" } ?? "",
            "deviceId": modem.deviceID ?? "",
        ]
        if let imei = modem.imei { row["href"] = "/modems/\(ConsoleForm.encode(imei))" }
        return row
    }

    /// `GET /modems`.
    func modemsPage(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        let session = try session(request, context, role: .operator)
        let modems = try registry.modems.all()
        let unprinted = try registry.labels.devices(.unprinted).count
        return page(
            "modems",
            title: "Modems",
            nav: "modems",
            session: session,
            [
                "modems": modems.map(modemRow), "count": modems.count, "unprinted": unprinted,
                "hasUnprinted": unprinted > 0,
            ]
        )
    }

    /// `GET /modems.json`: what the page polls.
    func modemsJSON(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        _ = try session(request, context, role: .operator)
        let modems = try registry.modems.all()
        return ConsoleResponses.json([
            "modems": modems.map(modemRow),
            "ready": modems.filter { $0.state == "ready" }.count,
        ])
    }

    /// `GET /modems/{key}`: one module's facts, registration, label, actions and trail.
    func modemPage(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        let session = try session(request, context, role: .operator)
        let key = context.parameters.get("key") ?? ""
        guard let modem = try registry.modems.find(imeiOrPort: key) else {
            throw ConsoleFailure.notFound("no modem with IMEI or port \(key.escapedForDisplay())")
        }
        let device = try modem.imei.flatMap { imei throws(NBGWError) in try registry.directory.device(imei: imei) }
        let binding = try device.flatMap { device throws(NBGWError) in
            try registry.bindings.find(deviceID: device.deviceID)
        }
        func fact(_ name: String, _ value: String?) -> [String: Any]? {
            guard let value, !value.isEmpty else { return nil }
            return ["name": name, "value": value]
        }
        let facts = [
            fact("State", modem.state), fact("Since", Self.date(modem.stateSince)),
            fact("Reason", modem.reason.map { "\($0.code): \($0.message)" }), fact("Port", modem.port),
            fact("IMEI", modem.imei), fact("Manufacturer", modem.manufacturer), fact("Model", modem.model),
            fact("Firmware", modem.firmware), fact("Dialect", modem.dialect), fact("IMSI", modem.imsi),
            fact("ICCID", modem.iccid), fact("Baud", modem.baud.map(String.init)),
            fact("Signal", modem.signal.summaryDBm.map { "\($0) dBm" }), fact("Device id", device?.deviceID),
            fact("Registered", Self.date(device?.registeredAt)),
            fact("Binding", binding.map { "\($0.account) / \($0.home) since \(Self.date($0.boundAt))" }),
        ].compactMap { $0 }
        let reg = modem.registration
        let registration = [
            fact("Status", reg.stat.map(String.init)), fact("Technology", reg.technology),
            fact("Operator", reg.operator), fact("TAC", reg.tac), fact("Cell", reg.ci),
            fact("Reject cause", reg.rejectCause.map(String.init)),
            fact("PSM active time", reg.activeTimeSeconds.map { "\($0) s" }),
            fact("Periodic TAU", reg.periodicTAUSeconds.map { "\($0) s" }), fact("Read at", Self.date(reg.at)),
        ].compactMap { $0 }
        var values: [String: Any] = ["facts": facts, "registration": registration]
        if let device {
            let file = ConsoleForm.encode(device.deviceID)
            values["label"] = [
                "payload": service.labelPayload(for: device), "deviceId": device.deviceID,
                "image": "/labels/\(file).png", "pdf": "/labels/\(file).pdf",
            ]
        }
        if session.role >= .admin, configuration.controlSocket != nil, let imei = modem.imei {
            values["actions"] = [
                "list": ConsoleModemControl.actions.map {
                    [
                        "name": $0.name, "label": $0.label, "csrf": session.csrfToken,
                        "path": "/modems/\(ConsoleForm.encode(imei))/action",
                    ]
                }
            ]
        }
        var trail: [(Date, [String: Any])] = []
        if let device {
            for entry in try registry.audit.entries(deviceID: device.deviceID, limit: 200) {
                let who = [entry.operator, entry.source, entry.clientAddress].compactMap { $0 }.joined(separator: " · ")
                trail.append(
                    (
                        entry.at,
                        [
                            "at": Self.date(entry.at), "event": entry.event, "who": who, "code": entry.code ?? "",
                            "detail": entry.detail ?? "",
                        ]
                    )
                )
            }
            for entry in try registry.console.audit(deviceID: device.deviceID) {
                trail.append(
                    (
                        entry.at,
                        [
                            "at": Self.date(entry.at), "event": "console " + entry.event,
                            "who": "\(entry.operator) · \(entry.clientAddress)", "code": entry.code ?? "",
                            "detail": entry.detail ?? "",
                        ]
                    )
                )
            }
        }
        values["audit"] = trail.sorted { $0.0 > $1.0 }.map(\.1)
        return page("modem", title: "Module \(modem.imei ?? modem.port)", nav: "modems", session: session, values)
    }

    /// `POST /modems/{key}/action` (admin): reset, reprobe, release or resume through the daemon.
    func modemAction(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        let session = try session(request, context, role: .admin)
        let fields = try await form(request)
        try checkCSRF(request, session, form: fields)
        let key = context.parameters.get("key") ?? ""
        let action = fields["action"] ?? ""
        guard ConsoleModemControl.actions.contains(where: { $0.name == action }) else {
            throw ConsoleFailure.bad(
                NBGWError(
                    .invalidArgument,
                    "unknown action \(action.escapedForDisplay()): reset, reprobe, release or resume"
                )
            )
        }
        guard let socket = configuration.controlSocket else {
            throw ConsoleFailure.bad(NBGWError(.daemonNotRunning, "no control socket: run the console from nbgwd"))
        }
        let deviceID = try registry.directory.device(imei: key)?.deviceID
        let back = "/modems/\(ConsoleForm.encode(key))"
        do {
            let state = try await ConsoleModemControl.perform(action: action, modem: key, socket: socket)
            audit("modem_\(action)", session, context, deviceID: deviceID, code: "OK", detail: "modem \(key)")
            return page(
                "message",
                title: "Modem \(action)",
                nav: "modems",
                session: session,
                [
                    "kind": "bound", "headline": "Done", "code": "OK",
                    "message": "The daemon took the \(action) of \(key) (it was \(state)).", "back": back,
                ]
            )
        } catch {
            audit(
                "modem_\(action)",
                session,
                context,
                deviceID: deviceID,
                code: error.code.rawValue,
                detail: error.message
            )
            return page(
                "message",
                title: "Modem \(action)",
                nav: "modems",
                session: session,
                [
                    "kind": "failed", "headline": "Refused", "code": error.code.rawValue, "message": error.message,
                    "back": back,
                ],
                status: .init(code: error.code.httpStatus)
            )
        }
    }
}
