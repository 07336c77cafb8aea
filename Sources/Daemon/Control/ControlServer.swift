import ATKit
import Control
import Discovery
import Foundation
import Gateway
import Logging
import NBGWCore
import Registry
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `nbgwd`'s control socket (docs/control.md): operators act on one modem while the rest run.
///
/// A ServiceLifecycle `Service`. `run()` listens on ``socketPath`` (mode 0660, group
/// ``group``), checks every peer's credentials (``ControlPeer``: root, the daemon's user, or the
/// operators' group), greets it, and answers its requests (``ControlProtocol``) through the
/// gateway: the live modem list, AT commands on a supervised modem's own session, reset /
/// re-probe / release / resume, state changes and URCs as they happen. Every action and every
/// refusal is appended to the audit log with the peer's user name.
///
/// Requests run concurrently (at most ``maxRequestsPerConnection`` per connection); what they
/// answer is queued on ``ControlSocketLoop``, which drops a client that does not read rather than
/// wait for it, so no supervisor ever waits on a socket.
public final class ControlServer: Service, Sendable {
    /// Why 16: an interactive console sends one command at a time, `--watch` holds one; more in
    /// flight on one connection is a runaway script.
    static let maxRequestsPerConnection = 16
    /// The longest an AT request may wait for its final result. Why 10 minutes: `AT+COPS=?` takes
    /// minutes on NB-IoT; longer is a mistake.
    static let maxATTimeout: Duration = .seconds(600)

    let socketPath: String
    let group: gid_t?
    let storePath: String
    let gateway: Gateway
    let registry: Registry
    let logger: Logger
    /// Every tty discovery saw, with its decision (`discovery`).
    let discovery: @Sendable () -> [DiscoveryEntry]
    let onListening: @Sendable (String) async -> Void
    private let tasks = Mutex<[UInt64: [Int: Task<Void, Never>]]>([:])

    /// - Parameters:
    ///   - group: the operators' group (`[store] group`); nil lets only root and the daemon's user in.
    ///   - storePath: the store the hello names (`nbgw --where` compares it with its own).
    public init(
        socketPath: String,
        group: gid_t?,
        storePath: String,
        gateway: Gateway,
        registry: Registry,
        logger: Logger,
        discovery: @escaping @Sendable () -> [DiscoveryEntry] = { [] },
        onListening: @escaping @Sendable (String) async -> Void = { _ in }
    ) {
        self.socketPath = socketPath
        self.group = group
        self.storePath = storePath
        self.gateway = gateway
        self.registry = registry
        self.logger = logger
        self.discovery = discovery
        self.onListening = onListening
    }

    public func run() async throws {
        let fd = try ControlSocketListener.open(path: socketPath, group: group)
        var limits = ControlSocketLoop.Limits()
        limits.refusalLine = { reason in
            ControlJSON.line(
                ControlReply<Empty>(
                    id: nil,
                    type: .error,
                    error: ControlError(code: ErrorCode.rateLimited.rawValue, message: reason)
                )
            )
        }
        let loop = try ControlSocketLoop(listenFD: fd, limits: limits)
        loop.start()
        defer { unlink(socketPath) }
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                logger.notice("control socket listening", metadata: ["control.socket": "\(socketPath)"])
                await onListening(socketPath)
                var peers: [UInt64: ControlPeer] = [:]
                for await event in loop.events {
                    switch event {
                    case .opened(let id, let peer):
                        if peer.isAuthorised(group: group, daemonUID: geteuid()) {
                            peers[id] = peer
                            loop.send(
                                ControlJSON.line(ControlReply(id: nil, type: .hello, result: hello(for: peer))),
                                to: id
                            )
                        } else {
                            logger.warning(
                                "control connection refused",
                                metadata: [
                                    "peer.user": "\(peer.user)", "peer.uid": "\(peer.uid)", "peer.pid": "\(peer.pid)",
                                ]
                            )
                            loop.send(
                                ControlJSON.line(ControlReply<Empty>(id: nil, type: .error, error: refusal(peer))),
                                to: id
                            )
                            loop.close(id)
                        }
                    case .refused(let peer, let reason):
                        logger.notice(
                            "control connection refused: over a limit",
                            metadata: ["peer.user": "\(peer.user)", "peer.uid": "\(peer.uid)", "reason": "\(reason)"]
                        )
                    case .line(let id, let bytes):
                        guard let peer = peers[id] else { continue }
                        dispatch(bytes, from: peer, connection: id, loop: loop)
                    case .overlong(let id):
                        let error = ControlError(
                            code: ErrorCode.invalidArgument.rawValue,
                            message: "a line over \(ControlProtocol.maxLineBytes) bytes: closing the connection"
                        )
                        loop.send(ControlJSON.line(ControlReply<Empty>(id: nil, type: .error, error: error)), to: id)
                        loop.close(id)
                    case .closed(let id, let reason):
                        if let peer = peers.removeValue(forKey: id) {
                            // A client dropped for not reading is worth a line: a stuck script, a dead terminal.
                            let level: Logger.Level = reason.hasPrefix("the client read nothing") ? .warning : .debug
                            logger.log(
                                level: level,
                                "control connection closed",
                                metadata: ["peer.user": "\(peer.user)", "reason": "\(reason)"]
                            )
                        }
                        cancelTasks(of: id)
                    }
                }
            } onGracefulShutdown: {
                loop.stop()
            }
        } onCancel: {
            loop.stop()
        }
        await loop.stopAndWait()
        for (id, _) in tasks.withLock({ $0 }) { cancelTasks(of: id) }
    }

    private func hello(for peer: ControlPeer) -> ControlHello {
        ControlHello(
            daemon: "nbgwd",
            version: NBGWVersion.current,
            protocol: ControlProtocol.version,
            pid: getpid(),
            user: peer.user,
            store: storePath
        )
    }

    private func refusal(_ peer: ControlPeer) -> ControlError {
        let name = group.map(Self.groupName) ?? "the daemon's"
        return ControlError(
            code: ErrorCode.permissionDenied.rawValue,
            message: "\(peer.user) may not use nbgwd's control socket: join group \(name) (`sudo adduser \(peer.user) "
                + "\(name)`, then log in again)"
        )
    }

    // MARK: Requests

    private func dispatch(_ bytes: [UInt8], from peer: ControlPeer, connection: UInt64, loop: ControlSocketLoop) {
        // A key given twice: JSONDecoder would keep one of the two silently (JSONDuplicateKeys).
        if let key = JSONDuplicateKeys.first(in: bytes) {
            reply(
                error: NBGWError(
                    .invalidArgument,
                    "not a protocol \(ControlProtocol.version) request: it holds the key \(key.escapedForDisplay()) "
                        + "twice; send each key once"
                ),
                id: nil,
                loop,
                connection
            )
            return
        }
        let request: ControlRequest
        do {
            request = try ControlJSON.decoder().decode(ControlRequest.self, from: Data(bytes))
        } catch {
            reply(
                error: NBGWError(.invalidArgument, "not a protocol \(ControlProtocol.version) request: \(error)"),
                id: nil,
                loop,
                connection
            )
            return
        }
        guard request.v == ControlProtocol.version else {
            reply(
                error: NBGWError(
                    .invalidArgument,
                    "protocol version \(request.v) is not spoken here: nbgwd \(NBGWVersion.current) speaks \(ControlProtocol.version)"
                ),
                id: request.id,
                loop,
                connection
            )
            return
        }
        guard let operation = ControlProtocol.Operation(rawValue: request.op) else {
            let known = ControlProtocol.Operation.allCases.map(\.rawValue).joined(separator: ", ")
            reply(
                error: NBGWError(.invalidArgument, "unknown op \(request.op.escapedForDisplay()); known: \(known)"),
                id: request.id,
                loop,
                connection
            )
            return
        }
        let admitted = tasks.withLock { tasks -> Bool in
            guard (tasks[connection]?.count ?? 0) < Self.maxRequestsPerConnection else { return false }
            return tasks[connection]?[request.id] == nil
        }
        guard admitted else {
            reply(
                error: NBGWError(
                    .rateLimited,
                    "more than \(Self.maxRequestsPerConnection) requests in flight on this connection, or id \(request.id) is in use; wait for the answers"
                ),
                id: request.id,
                loop,
                connection
            )
            return
        }
        // Created under the lock: the task's own removal (which takes the lock) cannot run before
        // it is recorded, so a quick request never leaves a finished task behind.
        // The busy marks are set under the same lock, so they follow the table's order.
        tasks.withLock { running in
            loop.markBusy(connection, true)
            running[connection, default: [:]][request.id] = Task { [self] in
                await handle(operation, request, peer: peer, connection: connection, loop: loop)
                tasks.withLock { running in
                    running[connection]?.removeValue(forKey: request.id)
                    if running[connection]?.isEmpty ?? true { loop.markBusy(connection, false) }
                }
            }
        }
    }

    private func cancelTasks(of connection: UInt64) {
        let running = tasks.withLock { $0.removeValue(forKey: connection) } ?? [:]
        for task in running.values { task.cancel() }
    }

    private func handle(
        _ operation: ControlProtocol.Operation,
        _ request: ControlRequest,
        peer: ControlPeer,
        connection: UInt64,
        loop: ControlSocketLoop
    ) async {
        do {
            switch operation {
            case .hello:
                reply(hello(for: peer), id: request.id, loop, connection)
            case .modems:
                reply(ControlModems(modems: gateway.modems()), id: request.id, loop, connection)
            case .modem:
                let key = try modemKey(request)
                guard let modem = gateway.modem(key) else {
                    throw NBGWError(
                        .unknownModem,
                        "no supervised modem has IMEI or port \(key.escapedForDisplay()); list them with `nbgw modems`"
                    )
                }
                reply(ControlModem(modem: modem), id: request.id, loop, connection)
            case .at:
                try await runAT(request, peer: peer, connection: connection, loop: loop)
            case .action:
                try await runAction(request, peer: peer, connection: connection, loop: loop)
            case .watch:
                try await watch(request, connection: connection, loop: loop)
            case .urcs:
                try await followURCs(request, connection: connection, loop: loop)
            case .discovery:
                reply(ControlDiscovery(entries: discovery()), id: request.id, loop, connection)
            }
        } catch let error as NBGWError {
            reply(error: error, id: request.id, loop, connection)
        } catch {
            reply(error: NBGWError(.internalError, "\(error)"), id: request.id, loop, connection)
        }
    }

    private func modemKey(_ request: ControlRequest) throws(NBGWError) -> String {
        guard let key = request.modem, !key.isEmpty, key.utf8.count <= 1024 else {
            throw NBGWError(.invalidArgument, "\(request.op) needs \"modem\": an IMEI or a port")
        }
        return key
    }

    private func runAT(
        _ request: ControlRequest,
        peer: ControlPeer,
        connection: UInt64,
        loop: ControlSocketLoop
    ) async throws {
        let key = try modemKey(request)
        guard let command = request.command, !command.isEmpty, command.utf8.count <= 1024 else {
            throw NBGWError(.invalidArgument, "at needs \"command\": one AT command line of at most 1024 bytes")
        }
        let redacted = ATCommandRedaction.redact(command)
        let timeout = try request.timeout.map { seconds throws(NBGWError) -> Duration in
            guard seconds > 0, seconds <= Self.maxATTimeout.seconds else {
                throw NBGWError(
                    .invalidArgument,
                    "timeout must be between 0 and \(Int(Self.maxATTimeout.seconds)) seconds"
                )
            }
            return .milliseconds(Int64(seconds * 1000))
        }
        do {
            let answer = try await gateway.sendAT(
                command,
                to: key,
                timeout: timeout,
                force: request.force ?? false,
                requester: peer.user
            )
            let exchange = answer.exchange
            logger.notice(
                "operator AT command",
                metadata: [
                    "peer.user": "\(peer.user)", "port": "\(answer.modem.port)", "imei": "\(answer.modem.imei ?? "-")",
                    "command": "\(redacted)", "final": "\(exchange.summary)",
                ]
            )
            await audit(
                .at,
                answer.modem,
                peer,
                code: exchange.succeeded ? "OK" : exchange.summary,
                detail: "\(answer.modem.port): \(redacted) → \(exchange.summary)"
                    + (answer.reprobing ? " (forced; re-probing)" : "")
            )
            reply(
                ControlATResult(
                    modem: answer.modem,
                    command: command,
                    lines: exchange.lines,
                    final: exchange.summary,
                    ok: exchange.succeeded,
                    urcs: answer.urcs,
                    reprobing: answer.reprobing
                ),
                id: request.id,
                loop,
                connection
            )
        } catch {
            await auditRefusal(error, key: key, peer: peer, detail: "at \(redacted)")
            throw error
        }
    }

    private func runAction(
        _ request: ControlRequest,
        peer: ControlPeer,
        connection: UInt64,
        loop: ControlSocketLoop
    ) async throws {
        let key = try modemKey(request)
        guard let name = request.action, let action = ModemAction(rawValue: name) else {
            let known = ModemAction.allCases.map(\.rawValue).joined(separator: ", ")
            throw NBGWError(.invalidArgument, "action needs \"action\": one of \(known)")
        }
        do {
            let modem = try gateway.perform(action, on: key, by: peer.user)
            logger.notice(
                "operator action",
                metadata: [
                    "peer.user": "\(peer.user)", "port": "\(modem.port)", "imei": "\(modem.imei ?? "-")",
                    "action": "\(name)",
                ]
            )
            let event: Registry.ModemActionEvent =
                switch action {
                case .reset: .reset
                case .reprobe: .reprobe
                case .release: .release
                case .resume: .resume
                }
            await audit(event, modem, peer, code: "OK", detail: "\(modem.port): \(name) (was \(modem.state.rawValue))")
            reply(ControlActionResult(modem: modem, action: action), id: request.id, loop, connection)
        } catch {
            await auditRefusal(error, key: key, peer: peer, detail: name)
            throw error
        }
    }

    /// The current list, then every change (of one modem when `modem` is given) until the
    /// connection closes. The subscription is taken before the list is read: no change falls in between.
    private func watch(_ request: ControlRequest, connection: UInt64, loop: ControlSocketLoop) async throws {
        let changes = gateway.stateChanges()
        let key = request.modem
        var modems = gateway.modems()
        if let key {
            guard let modem = gateway.modem(key) else {
                throw NBGWError(.unknownModem, "no supervised modem has IMEI or port \(key.escapedForDisplay())")
            }
            modems = [modem]
        }
        let ports = Set(modems.map(\.port))
        reply(ControlModems(modems: modems), id: request.id, loop, connection)
        for await change in changes {
            if key != nil, !ports.contains(change.port), change.imei != key { continue }
            let status = ModemStatus(
                port: change.port,
                imei: change.imei,
                state: change.state,
                stateSince: Date(),
                reason: change.reason,
                deviceID: change.deviceID,
                supervised: change.state.isActive || change.state == .released
            )
            loop.send(ControlJSON.line(ControlReply(id: request.id, type: .event, result: status)), to: connection)
        }
    }

    private func followURCs(_ request: ControlRequest, connection: UInt64, loop: ControlSocketLoop) async throws {
        let key = try modemKey(request)
        let (modem, urcs) = try gateway.urcs(of: key)
        reply(ControlModem(modem: modem), id: request.id, loop, connection)
        let name = modem.imei ?? modem.port
        for await urc in urcs {
            loop.send(
                ControlJSON.line(
                    ControlReply(
                        id: request.id,
                        type: .urc,
                        result: ControlURC(modem: name, line: urc.line, at: Date())
                    )
                ),
                to: connection
            )
        }
    }

    // MARK: Replies and audit

    private func reply<Result: Codable & Sendable>(
        _ result: Result,
        id: Int?,
        _ loop: ControlSocketLoop,
        _ connection: UInt64
    ) {
        loop.send(ControlJSON.line(ControlReply(id: id, type: .result, result: result)), to: connection)
    }

    private func reply(error: NBGWError, id: Int?, _ loop: ControlSocketLoop, _ connection: UInt64) {
        let line = ControlReply<Empty>(
            id: id,
            type: .error,
            error: ControlError(code: error.code.rawValue, message: error.message)
        )
        loop.send(ControlJSON.line(line), to: connection)
    }

    private func audit(
        _ event: Registry.ModemActionEvent,
        _ modem: ModemStatus,
        _ peer: ControlPeer,
        code: String,
        detail: String
    ) async {
        do {
            try await registry.modems.recordAction(
                event,
                imei: modem.imei,
                deviceID: modem.deviceID,
                operator: peer.user,
                code: code,
                detail: detail
            )
        } catch {
            logger.warning("cannot write the operator's action to the audit log: \(error)")
        }
    }

    private func auditRefusal(_ error: any Error, key: String, peer: ControlPeer, detail: String) async {
        guard let error = error as? NBGWError, [.commandRefused, .modemBusy, .unknownModem].contains(error.code) else {
            return
        }
        let modem = gateway.modem(key)
        let imei = modem?.imei ?? (key.utf8.count == 15 && key.utf8.allSatisfy { (48...57).contains($0) } ? key : nil)
        do {
            try await registry.modems.recordAction(
                .refused,
                imei: imei,
                deviceID: modem?.deviceID,
                operator: peer.user,
                code: error.code.rawValue,
                detail: "\(modem?.port ?? key): \(detail)"
            )
        } catch {
            logger.warning("cannot write the refused action to the audit log: \(error)")
        }
    }

    static func groupName(_ gid: gid_t) -> String {
        guard let entry = getgrgid(gid), let name = entry.pointee.gr_name else { return String(gid) }
        return String(cString: name)
    }
}

extension Duration {
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
