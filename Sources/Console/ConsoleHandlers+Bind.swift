import Foundation
import Hummingbird
import Ingest
import NBGWCore
import Pairing
import Provisioning
import Registry

extension ConsoleHandlers {
    /// `GET /bind`: pickers (every home, with its owner account) and the scan field.
    func bindPage(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        let session = try session(request, context, role: .binder)
        let query = query(request)
        return page("bind", title: "Bind", nav: "bind", session: session, try bindValues(query: query))
    }

    func bindValues(query: [String: String]) throws(NBGWError) -> [String: Any] {
        let homes = try registry.directory.homes()
        let owners = try registry.directory.accounts().filter { $0.role == .owner }
        let account = query["account"] ?? ""
        let home = query["home"] ?? ""
        return [
            "accounts": owners.map { ["name": $0.name, "selected": $0.name == account] as [String: Any] },
            "homes": homes.map { ["name": $0.name, "owner": $0.owner, "selected": $0.name == home] as [String: Any] },
            "token": query["token"] ?? "",
        ]
    }

    /// `POST /bind`: one scanned payload, from the scan field (script or plain form).
    func bindSubmit(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        let session = try session(request, context, role: .binder)
        let fields = try await form(request)
        try checkCSRF(request, session, form: fields)
        let result = await bind(qr: fields["qr"] ?? "", fields: fields, session: session, context: context)
        if wantsJSON(request) { return ConsoleResponses.json(result) }
        var values = try bindValues(query: fields)
        values["result"] = result
        return page("bind", title: "Bind", nav: "bind", session: session, values)
    }

    /// `POST /bind/frame?width=W&height=H&account=…&home=…`: one camera frame (8-bit luminance);
    /// the first QR code in it is bound as if typed into the scan field.
    func bindFrame(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        let session = try session(request, context, role: .binder)
        let fields = query(request)
        try checkCSRF(request, session, form: [:])
        guard let width = fields["width"].flatMap(Int.init), let height = fields["height"].flatMap(Int.init),
            (1...ConsoleFrameDecoder.maxSide).contains(width), (1...ConsoleFrameDecoder.maxSide).contains(height)
        else {
            throw ConsoleFailure.bad(
                NBGWError(.invalidArgument, "a frame needs width and height of 1 to \(ConsoleFrameDecoder.maxSide)")
            )
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: width * height)
        } catch {
            throw ConsoleFailure.bad(
                NBGWError(.payloadTooLarge, "a \(width)×\(height) frame is \(width * height) bytes")
            )
        }
        guard buffer.readableBytes == width * height else {
            throw ConsoleFailure.bad(
                NBGWError(.invalidArgument, "the frame has \(buffer.readableBytes) bytes, not \(width)×\(height)")
            )
        }
        let gray = buffer.getBytes(at: buffer.readerIndex, length: buffer.readableBytes) ?? []
        let texts: [String]
        do {
            texts = try await frames.run { ConsoleFrameDecoder.decode(gray: gray, width: width, height: height) }
        } catch {
            // Every decoder thread is busy and the line is full: this frame is dropped, as a camera
            // drops frames; the page sends the next one.
            var response = ConsoleResponses.json(["found": false, "busy": true], status: .tooManyRequests)
            response.headers[.retryAfter] = "1"
            return response
        }
        guard let text = texts.first else {
            return ConsoleResponses.json(["found": false])
        }
        var result = await bind(qr: text, fields: fields, session: session, context: context, via: "camera")
        result["found"] = true
        result["qr"] = text
        return ConsoleResponses.json(result)
    }

    /// Binds through ``BindingService`` (the CLI's path) with the operator's name and address on
    /// the bind's own audit row, and a row in the console's trail. Returns what the page shows.
    func bind(
        qr: String,
        fields: [String: String],
        session: ConsoleSession,
        context: IngestRequestContext,
        via: String = "scan"
    ) async -> [String: Any] {
        let account = fields["account"] ?? ""
        let home = fields["home"] ?? ""
        let token = fields["token"].flatMap { $0.isEmpty ? nil : $0 }
        do throws(NBGWError) {
            guard !qr.isEmpty else { throw NBGWError(.missingField, "nothing was scanned") }
            guard !account.isEmpty, !home.isEmpty else {
                throw NBGWError(.missingField, "pick an account and a home first (or create them: `nbgw homes add`)")
            }
            let outcome = try await service.bind(
                qr: qr,
                account: account,
                home: home,
                token: token,
                source: .http,
                operator: session.operatorName,
                ingest: BindCommand.IngestOrigin(
                    apiKey: "console:" + String(session.operatorName.prefix(56)),
                    clientAddress: context.clientAddress
                ),
                timeout: configuration.bindTimeout
            )
            let binding = outcome.outcome.binding
            let status = outcome.outcome.status.rawValue
            let message =
                status == "bound"
                ? "\(binding.deviceID) (IMEI \(binding.imei)) is now in \(binding.account) / \(binding.home)."
                : "\(binding.deviceID) was already in \(binding.account) / \(binding.home); nothing changed."
            audit(
                "bind",
                session,
                context,
                deviceID: binding.deviceID,
                code: status,
                detail: "\(via): \(account)/\(home)"
            )
            var result = Self.result(status: status, code: "OK", message: message, deviceID: binding.deviceID)
            if let sync = outcome.syncState { result["cloudSync"] = sync }
            return result
        } catch {
            let device = try? QRPayloadParser.parse(qr).deviceIDIfKnown
            audit(
                "bind_refused",
                session,
                context,
                deviceID: device,
                code: error.code.rawValue,
                detail: "\(via): \(error.message)"
            )
            return Self.result(status: "failed", code: error.code.rawValue, message: error.message, deviceID: device)
        }
    }
}

extension QRPayload {
    /// The device id a payload names without any look-up (labels name none until resolved).
    var deviceIDIfKnown: String? {
        if case .nbBind(let payload) = self { return payload.deviceID.rawValue }
        return nil
    }
}
