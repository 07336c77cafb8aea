import CloudServer
import Foundation
import Logging
import Synchronization
import TestPostgres
import Testing
import TuyaCloud

@testable import FleetCloud

@Suite("nbgw-cloud on PostgreSQL: access tokens a node remembers")
struct FleetTokenCacheTests {
    @Test("A live token is answered from the node's memory for 5 s; revoked in the database, it is refused after that")
    func revokedTokensStopWithinTheCacheLifetime() async throws {
        try await FleetFixture.with(nodes: 0) { fleet in
            try await Self.withStore(fleet) { store, clock, principal in
                let now = Int64(Date().timeIntervalSince1970 * 1000)
                let pair = try await store.grantToken(principal, now: now, lifetime: .seconds(7200))
                #expect(try await store.checkAccessToken(principal, accessToken: pair.accessToken, now: now) == nil)

                _ = try await fleet.sql("UPDATE access_token SET revoked = true")
                clock.advance(by: .seconds(4))
                #expect(
                    try await store.checkAccessToken(principal, accessToken: pair.accessToken, now: now) == nil,
                    "within the lifetime the node answers from memory, without a round trip"
                )
                #expect(
                    try await store.checkAccessToken(principal, accessToken: pair.accessToken, now: now + 7_200_000)?
                        .code
                        == TuyaErrorCode.tokenExpired,
                    "the token's own expiry is checked on every call, cached or not"
                )

                clock.advance(by: .seconds(1))
                let refused = try await store.checkAccessToken(principal, accessToken: pair.accessToken, now: now)
                #expect(refused?.code == TuyaErrorCode.tokenInvalid, "\(String(describing: refused))")
            }
        }
    }

    @Test("A refresh through this node refuses the token it replaced at once; the new one is live")
    func refreshDropsTheReplacedTokenAtOnce() async throws {
        try await FleetFixture.with(nodes: 0) { fleet in
            try await Self.withStore(fleet) { store, _, principal in
                let now = Int64(Date().timeIntervalSince1970 * 1000)
                let old = try await store.grantToken(principal, now: now, lifetime: .seconds(7200))
                #expect(try await store.checkAccessToken(principal, accessToken: old.accessToken, now: now) == nil)

                let new = try await store.refreshToken(
                    principal,
                    refreshToken: old.refreshToken,
                    now: now,
                    lifetime: .seconds(7200)
                ).get()
                let refused = try await store.checkAccessToken(principal, accessToken: old.accessToken, now: now)
                #expect(refused?.code == TuyaErrorCode.tokenInvalid, "\(String(describing: refused))")
                #expect(try await store.checkAccessToken(principal, accessToken: new.accessToken, now: now) == nil)
            }
        }
    }

    /// A store on the fixture's database with a cache on `clock`, its pool running, and a gateway's principal.
    static func withStore(
        _ fleet: FleetFixture,
        _ body: (FleetStore, ManualInstants, CloudPrincipal) async throws -> Void
    ) async throws {
        let credentials = try await fleet.addGateway("gw")
        let clock = ManualInstants()
        let store = FleetStore(
            database: try FleetDatabase(
                url: fleet.databaseURL,
                password: fleet.postgres.password,
                maximumConnections: 2
            ),
            secrets: try FleetSecrets(keyFile: fleet.keyFile),
            logger: Logger(label: "test"),
            tokenCache: FleetTokenCache(now: { clock.now })
        )
        let pool = Task { await store.run() }
        defer { pool.cancel() }
        try await body(store, clock, CloudPrincipal(tenant: "acme", gateway: "gw", clientID: credentials.clientID))
    }
}

/// Instants that move only when told.
final class ManualInstants: Sendable {
    private let offset = Mutex(Duration.zero)
    private let start = ContinuousClock.now

    var now: ContinuousClock.Instant { start + offset.withLock { $0 } }

    func advance(by duration: Duration) { offset.withLock { $0 += duration } }
}
