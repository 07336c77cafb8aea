import Foundation
import PostgresNIO

/// The statements on a bind's path, prepared once per connection and then sent by name.
///
/// Why: sent as text, every statement is parsed and planned again by PostgreSQL. Under
/// `tools/bench-cloud.sh` (one node, one core) PostgreSQL spent 2.4 ms of CPU per HTTP bind on
/// our text statements where pgbench's floor, the same SQL prepared, needs under 1 ms, and on a
/// machine the database shares that is the fleet's ceiling (docs/fleet.md, "Performance"). The
/// SQL is the text `FleetStore` sent before, parameters numbered; `tools/bench/cloud-floor.sql`
/// has the same statements.
enum FleetStatements {
    /// ``FleetStore/checkAccessToken(_:accessToken:now:)``: the token's expiry and whether a refresh replaced it.
    struct AccessToken: PostgresPreparedStatement {
        static let sql = "SELECT expires_at, revoked FROM access_token WHERE access_token = $1 AND client_id = $2"
        typealias Row = (Int64, Bool)
        var accessToken: String
        var clientID: String

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(accessToken)
            bindings.append(clientID)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// An idempotency key's claim (a row without an answer yet); a row back when claimed now.
    struct ClaimKey: PostgresPreparedStatement {
        static let sql = """
            INSERT INTO idempotency (client_id, key, request_hash, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT (client_id, key) DO NOTHING RETURNING 1
            """
        typealias Row = Int
        var claim: FleetClaim

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 5)
            bindings.append(claim.clientID)
            bindings.append(claim.key)
            bindings.append(claim.requestHash)
            bindings.append(claim.now)
            bindings.append(claim.expiresAt)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Int.self) }
    }

    /// ``FleetStore/homeOwner(_:creatingFor:_:)``: the home's owner, the home created first when
    /// missing; with a claim, the key's claim first, and the home created only when it was claimed
    /// (a key already used creates nothing). Whether the key was claimed, and the owner.
    struct HomeOwner: PostgresPreparedStatement {
        static let sql = """
            WITH claim AS (
                INSERT INTO idempotency (client_id, key, request_hash, created_at, expires_at)
                SELECT $5, $6, $7, $8, $9 WHERE $6::text IS NOT NULL
                ON CONFLICT (client_id, key) DO NOTHING RETURNING 1),
            created AS (
                INSERT INTO home (tenant_id, name, owner_uid, created_at)
                SELECT $1, $2, $3, $4 WHERE $6::text IS NULL OR EXISTS (SELECT 1 FROM claim)
                ON CONFLICT (tenant_id, name) DO NOTHING RETURNING owner_uid)
            SELECT EXISTS (SELECT 1 FROM claim),
                (SELECT owner_uid FROM created UNION ALL
                 SELECT owner_uid FROM home WHERE tenant_id = $1 AND name = $2 LIMIT 1)
            """
        typealias Row = (Bool, String?)
        var tenant: String
        var home: String
        var uid: String
        var now: Int64
        var claim: FleetClaim?

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 9)
            bindings.append(tenant)
            bindings.append(home)
            bindings.append(uid)
            bindings.append(now)
            bindings.appendClaim(claim)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// A new pairing token and its key's answer (no key: the update matches nothing).
    struct InsertPairingToken: PostgresPreparedStatement {
        static let sql = """
            WITH answer AS (UPDATE idempotency SET response = $1 WHERE client_id = $2 AND key = $3)
            INSERT INTO pairing_token (token, tenant_id, home, uid, created_at, expires_at) VALUES ($4, $5, $6, $7, $8, $9)
            RETURNING 1
            """
        typealias Row = Int
        var answer: String
        var clientID: String
        var key: String?
        var token: String
        var tenant: String
        var home: String
        var uid: String
        var now: Int64
        var expiresAt: Int64

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 9)
            bindings.append(answer)
            bindings.append(clientID)
            bindings.append(key)
            bindings.append(token)
            bindings.append(tenant)
            bindings.append(home)
            bindings.append(uid)
            bindings.append(now)
            bindings.append(expiresAt)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Int.self) }
    }

    /// A bind's reads: its token and its device, one row whatever is found; with a claim, the key's
    /// claim first (whether it was claimed comes first in the row).
    struct BindLookup: PostgresPreparedStatement {
        static let sql = """
            WITH claim AS (
                INSERT INTO idempotency (client_id, key, request_hash, created_at, expires_at)
                SELECT $4, $5, $6, $7, $8 WHERE $5::text IS NOT NULL
                ON CONFLICT (client_id, key) DO NOTHING RETURNING 1)
            SELECT EXISTS (SELECT 1 FROM claim),
                t.home, t.uid, t.expires_at, t.used_at IS NOT NULL, d.tenant_id, d.frozen_reason
            FROM (VALUES (1)) AS one (x)
            LEFT JOIN pairing_token t ON t.token = $1 AND t.tenant_id = $2
            LEFT JOIN device d ON d.device_id = $3
            """
        typealias Row = (Bool, String?, String?, Int64?, Bool?, String?, String?)
        var token: String
        var tenant: String
        var deviceID: String
        var claim: FleetClaim?

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 8)
            bindings.append(token)
            bindings.append(tenant)
            bindings.append(deviceID)
            bindings.appendClaim(claim)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// A bind's writes: the binding, the token's use, the outcome, the event and the key's answer;
    /// each part runs only when the one before it wrote its row (the binding, then the token).
    /// The binding's time when it was made now, and whether the token was used.
    struct BindWrite: PostgresPreparedStatement {
        static let sql = """
            WITH bound AS (
                INSERT INTO binding (device_id, tenant_id, uid, home, token, gateway, bound_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7)
                ON CONFLICT (device_id) DO NOTHING RETURNING bound_at),
            used AS (
                UPDATE pairing_token SET used_at = $7, used_by = $1
                WHERE token = $5 AND used_at IS NULL AND expires_at >= $7 AND EXISTS (SELECT 1 FROM bound)
                RETURNING 1),
            outcome AS (
                INSERT INTO pairing_outcome (token, device_id, success, error_code, error_msg, at)
                SELECT $5, $1, true, NULL, NULL, $7 WHERE EXISTS (SELECT 1 FROM used)
                ON CONFLICT (token, device_id) DO UPDATE
                SET success = true, error_code = NULL, error_msg = NULL, at = EXCLUDED.at),
            event AS (
                INSERT INTO event (tenant_id, at, kind, device_id, gateway, idempotency_key, detail)
                SELECT $2, $7, 'bound', $1, $6, $8, $3 WHERE EXISTS (SELECT 1 FROM used)),
            answer AS (
                UPDATE idempotency SET response = $9
                WHERE client_id = $10 AND key = $8 AND EXISTS (SELECT 1 FROM used))
            SELECT (SELECT bound_at FROM bound), EXISTS (SELECT 1 FROM used)
            """
        typealias Row = (Int64?, Bool)
        var deviceID: String
        var tenant: String
        var uid: String
        var home: String
        var token: String
        var gateway: String
        var now: Int64
        var key: String?
        var answer: String
        var clientID: String

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 10)
            bindings.append(deviceID)
            bindings.append(tenant)
            bindings.append(uid)
            bindings.append(home)
            bindings.append(token)
            bindings.append(gateway)
            bindings.append(now)
            bindings.append(key)
            bindings.append(answer)
            bindings.append(clientID)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }
}

/// An idempotency key's claim, as ``FleetStatements/ClaimKey`` writes it, or as the first part of
/// a hot mutation's first statement (one round trip less: docs/fleet.md, "Performance").
struct FleetClaim: Sendable {
    var clientID: String
    var key: String
    var requestHash: String
    var now: Int64
    var expiresAt: Int64
}

extension PostgresBindings {
    /// A claim's client id, key, hash, time and expiry, in that order; five NULLs without one (the
    /// statement then claims nothing: its `WHERE key IS NOT NULL` fails).
    mutating func appendClaim(_ claim: FleetClaim?) {
        append(claim?.clientID)
        append(claim?.key)
        append(claim?.requestHash)
        append(claim?.now)
        append(claim?.expiresAt)
    }
}

extension PostgresConnection {
    /// The rows of a prepared statement, never sent on a closed connection (as ``rows(_:logger:)``).
    func prepared<Statement: PostgresPreparedStatement>(
        _ statement: Statement,
        logger: Logger
    ) async throws
        -> [Statement.Row]
    {
        guard !isClosed else {
            throw FleetError("the database closed the connection before the next statement; retry the request")
        }
        var rows: [Statement.Row] = []
        for try await row in try await execute(statement, logger: logger) { rows.append(row) }
        return rows
    }
}
