import CloudServer
import Foundation
import PostgresNIO

/// A gateway's credentials as `gateways add` and `credentials rotate` print them, once.
public struct FleetGatewayCredentials: Codable, Sendable {
    public var tenant: String
    public var gateway: String
    public var clientID: String
    public var secret: String
    public var slot: Int

    enum CodingKeys: String, CodingKey {
        case tenant, gateway, slot
        case clientID = "client_id"
        case secret
    }
}

extension FleetStore {
    /// Adds a tenant; an existing one is left as it is.
    public func addTenant(_ id: String, now: Int64) async throws -> Bool {
        guard id.range(of: "^[a-z0-9][a-z0-9-]{0,62}$", options: .regularExpression) != nil else {
            throw FleetError("tenant \(id.debugDescription) must be 1 to 63 of a-z 0-9 -, starting with a letter or digit")
        }
        let logger = self.logger
        return try await transaction { connection in
            try await connection.run(
                "INSERT INTO tenant (id, created_at) VALUES (\(id), \(now)) ON CONFLICT DO NOTHING RETURNING 1",
                logger: logger
            ) == 1
        }
    }

    /// Adds a gateway (or an operator's credential, `role: .operator`: device management) with a
    /// fresh client id and a secret in slot 1. Both share the tenant's names.
    public func addGateway(
        tenant: String,
        name: String,
        role: CloudRole = .gateway,
        now: Int64
    ) async throws -> FleetGatewayCredentials {
        guard name.range(of: "^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$", options: .regularExpression) != nil else {
            throw FleetError("\(role.rawValue) name \(name.debugDescription) must be 1 to 63 of A-Z a-z 0-9 . _ -")
        }
        let clientID = CloudServerRules.randomCode(20, alphabet: "abcdefghijklmnopqrstuvwxyz0123456789")
        let secret = CloudServerRules.randomHex(16)
        let sealed = Data(try secrets.seal(secret, clientID: clientID))
        let logger = self.logger
        try await transaction { connection in
            let known = try await connection.run("SELECT 1 FROM tenant WHERE id = \(tenant)", logger: logger)
            guard known == 1 else {
                throw FleetError("no tenant \(tenant.debugDescription); add it first: nbgw-cloud tenants add \(tenant)")
            }
            let added = try await connection.run(
                """
                INSERT INTO gateway (tenant_id, name, client_id, created_at, role)
                VALUES (\(tenant), \(name), \(clientID), \(now), \(role.rawValue))
                ON CONFLICT DO NOTHING RETURNING 1
                """,
                logger: logger
            )
            guard added == 1 else {
                throw FleetError(
                    "tenant \(tenant) already has a gateway or operator \(name); rotate its secret instead"
                )
            }
            try await connection.run(
                "INSERT INTO credential (client_id, slot, sealed_secret, created_at) VALUES (\(clientID), 1, \(sealed), \(now))",
                logger: logger
            )
        }
        return FleetGatewayCredentials(tenant: tenant, gateway: name, clientID: clientID, secret: secret, slot: 1)
    }

    /// A new secret for a gateway in its free slot (or in place of the older one when both are
    /// live): the gateway keeps working with the old secret until it is retired.
    public func rotateSecret(tenant: String, gateway: String, now: Int64) async throws -> FleetGatewayCredentials {
        let logger = self.logger
        let clientID = try await self.clientID(tenant: tenant, gateway: gateway)
        let secret = CloudServerRules.randomHex(16)
        let sealed = Data(try secrets.seal(secret, clientID: clientID))
        let slot = try await transaction { connection in
            let slots = try await connection.all(
                "SELECT slot, created_at FROM credential WHERE client_id = \(clientID) ORDER BY created_at",
                as: (Int16, Int64).self,
                logger: logger
            )
            let live = Set(slots.map(\.0))
            let slot: Int16 = !live.contains(1) ? 1 : !live.contains(2) ? 2 : slots[0].0
            try await connection.run(
                """
                INSERT INTO credential (client_id, slot, sealed_secret, created_at) VALUES (\(clientID), \(slot), \(sealed), \(now))
                ON CONFLICT (client_id, slot) DO UPDATE SET sealed_secret = EXCLUDED.sealed_secret, created_at = EXCLUDED.created_at
                """,
                logger: logger
            )
            return Int(slot)
        }
        credentialCache.removeAll()
        return FleetGatewayCredentials(tenant: tenant, gateway: gateway, clientID: clientID, secret: secret, slot: slot)
    }

    /// Retires a secret slot; the last live secret of a gateway cannot be retired.
    public func retireSecret(tenant: String, gateway: String, slot: Int) async throws {
        let logger = self.logger
        let clientID = try await self.clientID(tenant: tenant, gateway: gateway)
        try await transaction { connection in
            let live = try await connection.all(
                "SELECT slot FROM credential WHERE client_id = \(clientID) FOR UPDATE",
                as: Int16.self,
                logger: logger
            )
            guard live.contains(Int16(slot)) else {
                throw FleetError("gateway \(gateway) has no secret in slot \(slot) (live: \(live.map(String.init)))")
            }
            guard live.count > 1 else {
                throw FleetError("slot \(slot) holds gateway \(gateway)'s only secret; rotate first, then retire")
            }
            try await connection.run(
                "DELETE FROM credential WHERE client_id = \(clientID) AND slot = \(Int16(slot))",
                logger: logger
            )
        }
        credentialCache.removeAll()
    }

    /// Turns the tenant's IMEI allow-list on and adds `imeis` to it.
    public func importIMEIs(tenant: String, _ imeis: [String]) async throws -> Int {
        let logger = self.logger
        return try await transaction { connection in
            let known = try await connection.run(
                "UPDATE tenant SET imei_allow_list = true WHERE id = \(tenant) RETURNING 1",
                logger: logger
            )
            guard known == 1 else { throw FleetError("no tenant \(tenant.debugDescription)") }
            var added = 0
            for imei in imeis {
                added += try await connection.run(
                    "INSERT INTO tenant_imei (tenant_id, imei) VALUES (\(tenant), \(imei)) ON CONFLICT DO NOTHING RETURNING 1",
                    logger: logger
                )
            }
            return added
        }
    }

    func clientID(tenant: String, gateway: String) async throws -> String {
        let logger = self.logger
        let found = try await client.withConnection { connection in
            try await connection.first(
                "SELECT client_id FROM gateway WHERE tenant_id = \(tenant) AND name = \(gateway)",
                as: String.self,
                logger: logger
            )
        }
        guard let found else { throw FleetError("tenant \(tenant) has no gateway \(gateway)") }
        return found
    }

    /// Deletes idempotency records and access tokens past their time; returns how many.
    public func purge(now: Int64) async throws -> Int {
        let logger = self.logger
        return try await transaction { connection in
            let keys = try await connection.run(
                "DELETE FROM idempotency WHERE expires_at < \(now) RETURNING 1",
                logger: logger
            )
            // Kept a day past expiry so a late refresh is told "expired", not "unknown".
            let tokens = try await connection.run(
                "DELETE FROM access_token WHERE expires_at < \(now - 86_400_000) RETURNING 1",
                logger: logger
            )
            return keys + tokens
        }
    }
}
