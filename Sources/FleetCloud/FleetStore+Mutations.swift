import CloudServer
import Foundation
import PostgresNIO
import Synchronization
import TuyaCloud

extension FleetStore {
    /// How long an idempotency key's answer is kept (and replayed): a day, longer than any
    /// gateway's outbox retries for one row (docs/fleet.md, "Idempotency"); purged after.
    public static let idempotencyLifetimeMillis: Int64 = 24 * 3600 * 1000

    public func mutate(
        _ mutation: CloudMutation,
        by principal: CloudPrincipal,
        idempotency: CloudIdempotency?,
        settings: CloudServerSettings,
        now: Int64
    ) async throws -> Result<CloudMutationAnswer, CloudServerFailure> {
        var attempt = 1
        while true {
            do {
                return try await mutateOnce(
                    mutation,
                    by: principal,
                    idempotency: idempotency,
                    settings: settings,
                    now: now
                )
            } catch is FleetKeyReleased where attempt < 3 {
                attempt += 1
            }
        }
    }

    private func mutateOnce(
        _ mutation: CloudMutation,
        by principal: CloudPrincipal,
        idempotency: CloudIdempotency?,
        settings: CloudServerSettings,
        now: Int64
    ) async throws -> Result<CloudMutationAnswer, CloudServerFailure> {
        let logger = self.logger
        let counters = self.counters
        do {
            let answer = try await transaction { connection -> Result<CloudMutationAnswer, CloudServerFailure> in
                let claim = idempotency.map {
                    FleetClaim(
                        clientID: principal.clientID,
                        key: $0.key,
                        requestHash: $0.requestHash,
                        now: now,
                        expiresAt: now + FleetStore.idempotencyLifetimeMillis
                    )
                }
                // The claim first: a second request under the same key waits here on the primary
                // key until this transaction ends, then finds the answer. The hot mutations claim
                // in their first statement (one round trip less), the others here.
                let claimsFirst = mutation.claimsInItsFirstStatement
                if let claim, !claimsFirst {
                    let claimed = try await connection.prepared(FleetStatements.ClaimKey(claim: claim), logger: logger)
                    if claimed.isEmpty {
                        return try await FleetStore.storedAnswer(claim, connection, counters: counters, logger: logger)
                    }
                }
                let context = FleetMutationContext(
                    connection: connection,
                    principal: principal,
                    key: idempotency?.key,
                    claim: claimsFirst ? claim : nil,
                    settings: settings,
                    now: now,
                    logger: logger,
                    counters: counters,
                    answer: FleetStoredAnswer()
                )
                let json: String
                do {
                    switch mutation {
                    case .register(let request): json = try await FleetStore.register(request, context)
                    case .pairingToken(let request): json = try await FleetStore.createPairingToken(request, context)
                    case .bind(let request): json = try await FleetStore.bind(request, context)
                    case .unbind(let deviceID): json = try await FleetStore.unbind(deviceID, context)
                    case .transfer(let deviceID, let request):
                        json = try await FleetStore.transfer(deviceID, request, context)
                    case .freeze(let deviceID, let request):
                        json = try await FleetStore.freeze(deviceID, request, context)
                    case .delete(let deviceID): json = try await FleetStore.delete(deviceID, context)
                    }
                } catch is FleetKeyTaken {
                    // Claimed by an earlier request under the same key (thrown only with a claim).
                    guard let claim else { throw FleetError("a mutation without a key found its key taken") }
                    return try await FleetStore.storedAnswer(claim, connection, counters: counters, logger: logger)
                }
                // The hot mutations store their answer in their effect's statement (one round trip less).
                if let idempotency, !context.answer.stored {
                    try await connection.run(
                        """
                        UPDATE idempotency SET response = \(json)
                        WHERE client_id = \(principal.clientID) AND key = \(idempotency.key)
                        """,
                        logger: logger
                    )
                }
                return .success(.applied(json: json))
            }
            return answer
        } catch let rollback as FleetRollback {
            // Refused: nothing of it stays, the key is free for a later, valid request. What a
            // refusal records for the pairing result is written in a transaction of its own.
            if let record = rollback.record {
                try await recordRefusal(record, principal: principal, now: now)
            }
            return .failure(rollback.failure)
        }
    }

    /// The answer stored under a key this request found claimed: the first answer again, or a
    /// refusal when the key came with another request.
    static func storedAnswer(
        _ claim: FleetClaim,
        _ connection: PostgresConnection,
        counters: FleetCounters,
        logger: Logger
    ) async throws -> Result<CloudMutationAnswer, CloudServerFailure> {
        let stored = try await connection.first(
            """
            SELECT request_hash, response FROM idempotency
            WHERE client_id = \(claim.clientID) AND key = \(claim.key)
            """,
            as: (String, String?).self,
            logger: logger
        )
        guard let (hash, response) = stored else {
            // Claimed by a transaction that then refused and let the key go: retry.
            throw FleetKeyReleased()
        }
        guard hash == claim.requestHash else { return .failure(.idempotencyKeyReused) }
        guard let response else {
            // Answers are written before commit; a key without one is not ours to replay.
            throw FleetError("idempotency key \(claim.key) has no stored answer")
        }
        counters.replay()
        return .success(.replayed(json: response))
    }

    /// Keeps a refused bind's outcome for the token's pairing result and the event log.
    func recordRefusal(_ record: FleetRollback.Record, principal: CloudPrincipal, now: Int64) async throws {
        let logger = self.logger
        try await transaction { connection in
            try await connection.run(
                """
                INSERT INTO pairing_outcome (token, device_id, success, error_code, error_msg, at)
                VALUES (\(record.token), \(record.deviceID), false, \(String(record.failure.code)),
                    \(record.failure.msg), \(now))
                ON CONFLICT (token, device_id) DO UPDATE
                SET success = false, error_code = EXCLUDED.error_code, error_msg = EXCLUDED.error_msg, at = EXCLUDED.at
                """,
                logger: logger
            )
            if record.conflict {
                try await connection.run(
                    """
                    INSERT INTO event (tenant_id, at, kind, device_id, gateway, detail)
                    VALUES (\(principal.tenant), \(now), 'conflict', \(record.deviceID), \(principal.gateway),
                        \(record.failure.msg))
                    """,
                    logger: logger
                )
            }
        }
    }
}

/// What one mutation works with.
struct FleetMutationContext {
    var connection: PostgresConnection
    var principal: CloudPrincipal
    var key: String?
    /// The key's claim, for a mutation that makes it in its first statement
    /// (``CloudMutation/claimsInItsFirstStatement``); it throws ``FleetKeyTaken`` when the key was
    /// claimed before.
    var claim: FleetClaim?
    var settings: CloudServerSettings
    var now: Int64
    var logger: Logger
    var counters: FleetCounters
    /// Set by a mutation that stored its answer with its effect.
    var answer: FleetStoredAnswer

    /// The key's answer, as `UPDATE idempotency` needs it in a mutation's own statement: the
    /// client id and the key (nil: no key, the update matches no row).
    var answerKey: (client: String, key: String?) { (principal.clientID, key) }

    func event(_ kind: String, device: String, detail: String? = nil) async throws {
        try await connection.run(
            """
            INSERT INTO event (tenant_id, at, kind, device_id, gateway, idempotency_key, detail)
            VALUES (\(principal.tenant), \(now), \(kind), \(device), \(principal.gateway), \(key), \(detail))
            """,
            logger: logger
        )
    }
}

/// Whether a mutation stored its idempotency answer itself (in the statement of its effect).
final class FleetStoredAnswer: Sendable {
    private let flag = Mutex(false)

    var stored: Bool {
        get { flag.withLock { $0 } }
        set { flag.withLock { $0 = newValue } }
    }
}

/// The key's claim was let go by a refused request meanwhile: run the request again.
struct FleetKeyReleased: Error {}

/// A mutation's first statement found its key claimed already: the stored answer is the answer.
struct FleetKeyTaken: Error {}

extension CloudMutation {
    /// The mutations on a bind's path, which claim their key in their first statement.
    var claimsInItsFirstStatement: Bool {
        switch self {
        case .pairingToken, .bind: true
        case .register, .unbind, .transfer, .freeze, .delete: false
        }
    }
}

extension FleetRollback {
    /// A refused bind's outcome, kept after the rollback.
    struct Record: Sendable {
        var token: String
        var deviceID: String
        var failure: CloudServerFailure
        /// A conflict with another owner (an event of its own).
        var conflict: Bool
    }
}
