import DeviceIdentity
import Foundation
import GRDB
import NBGWCore
import TestClocks
import Testing

@testable import Registry

@Suite("Registry: binding rules on a real SQLite file")
struct RegistryBindingTests {
    /// A store with owners alice and bob, guest gus, homes alice-home (any product) and
    /// bob-meters (product "meter" only), and two registered devices.
    struct Fixture {
        let store: TestStore
        let clock = ManualWallClock()
        let registry: Registry
        let meter: DeviceRecord
        let tracker: DeviceRecord

        init() throws {
            store = try TestStore()
            registry = try Registry(path: store.path, clock: clock)
            try registry.directory.addAccount(name: "alice", role: .owner)
            try registry.directory.addAccount(name: "bob", role: .owner)
            try registry.directory.addAccount(name: "gus", role: .guest)
            try registry.directory.addHome(name: "alice-home", owner: "alice")
            try registry.directory.addHome(name: "bob-meters", owner: "bob", allowedProducts: ["meter"])
            meter = try #require(
                try registry.directory.recordRegistration(
                    ModuleIdentity(imei: try IMEI("490154203237518"), productID: "meter"),
                    deviceID: try! DeviceID("dev-meter-1"),
                    labelCode: "LABELMETER1",
                    minted: true
                )
            ).device
            tracker = try #require(
                try registry.directory.recordRegistration(
                    ModuleIdentity(imei: try IMEI("356938035643809"), productID: "tracker"),
                    deviceID: try! DeviceID("dev-tracker-1"),
                    labelCode: "LABELTRACK1",
                    minted: true
                )
            ).device
        }

        func bind(
            _ device: DeviceRecord,
            _ account: String,
            _ home: String,
            token: String? = nil
        ) throws(NBGWError)
            -> BindOutcome
        {
            try registry.bindings.bind(
                BindCommand(
                    deviceID: try! DeviceID(device.deviceID),
                    account: account,
                    home: home,
                    token: token,
                    source: .cli
                )
            )
        }

        func expectCode(_ code: ErrorCode, _ body: () throws -> Void) {
            do {
                try body()
                Issue.record("expected \(code.rawValue), got success")
            } catch {
                #expect((error as? NBGWError)?.code == code, "\(error)")
            }
        }
    }

    @Test("A first bind succeeds and a repeat to the same account and home is unchanged")
    func bindThenRepeat() throws {
        let f = try Fixture()
        #expect(try f.bind(f.meter, "alice", "alice-home").status == .bound)
        let again = try f.bind(f.meter, "alice", "alice-home")
        #expect(again.status == .unchanged)
        #expect(try f.registry.bindings.list().count == 1)
    }

    @Test("Strong binding: a bound device refuses another account and another home")
    func strongBinding() throws {
        let f = try Fixture()
        _ = try f.bind(f.meter, "alice", "alice-home")
        f.expectCode(.deviceAlreadyBound) { _ = try f.bind(f.meter, "bob", "bob-meters") }
        try f.registry.directory.addHome(name: "alice-garage", owner: "alice")
        f.expectCode(.deviceAlreadyBound) { _ = try f.bind(f.meter, "alice", "alice-garage") }
        try f.registry.bindings.unbind(deviceID: f.meter.deviceID, source: .cli)
        #expect(try f.bind(f.meter, "bob", "bob-meters").status == .bound)
        #expect(try f.registry.bindings.find(deviceID: f.meter.deviceID)?.account == "bob")
    }

    @Test("Guests, strangers' homes, unknown names and disallowed products are refused with their codes")
    func refusals() throws {
        let f = try Fixture()
        f.expectCode(.guestNotAllowedStrongBind) { _ = try f.bind(f.meter, "gus", "alice-home") }
        f.expectCode(.homeAccessDenied) { _ = try f.bind(f.meter, "alice", "bob-meters") }
        f.expectCode(.unknownAccount) { _ = try f.bind(f.meter, "mallory", "alice-home") }
        f.expectCode(.unknownHome) { _ = try f.bind(f.meter, "alice", "nowhere") }
        f.expectCode(.productNotAllowed) { _ = try f.bind(f.tracker, "bob", "bob-meters") }
        f.expectCode(.unknownDevice) {
            _ = try f.registry.bindings.bind(
                BindCommand(deviceID: try! DeviceID("ghost"), account: "alice", home: "alice-home", source: .cli)
            )
        }
        #expect(try f.registry.bindings.list().isEmpty)
        let rejected = try f.registry.audit.entries().filter { $0.event == "bind_rejected" }.compactMap(\.code)
        #expect(
            rejected == [
                "GUEST_NOT_ALLOWED_STRONG_BIND", "HOME_ACCESS_DENIED", "UNKNOWN_ACCOUNT", "UNKNOWN_HOME",
                "PRODUCT_NOT_ALLOWED", "UNKNOWN_DEVICE",
            ]
        )
    }

    @Test("A pairing token is valid for 10 minutes and dies with the bind that uses it")
    func tokenLifetime() throws {
        let f = try Fixture()
        let token = try f.registry.directory.createToken(home: "alice-home")
        #expect(token.expiresAt.timeIntervalSince(token.createdAt) == 600)
        f.clock.advance(by: 599)
        #expect(try f.bind(f.meter, "alice", "alice-home", token: token.token).status == .bound)
        #expect(try f.registry.directory.token(token.token)?.usedByDevice == f.meter.deviceID)
        try f.registry.bindings.unbind(deviceID: f.meter.deviceID, source: .cli)
        f.expectCode(.tokenExpired) { _ = try f.bind(f.meter, "alice", "alice-home", token: token.token) }

        let late = try f.registry.directory.createToken(home: "alice-home")
        f.clock.advance(by: 600.001)
        f.expectCode(.tokenExpired) { _ = try f.bind(f.meter, "alice", "alice-home", token: late.token) }
    }

    @Test("A bind without a token invents none: the binding has no token and nothing else changes")
    func tokenlessBindHasNoToken() throws {
        let f = try Fixture()
        let tokensBefore = try f.registry.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM pairing_token")
        }
        let eventsBefore = try f.registry.audit.entries().map(\.event)
        #expect(try f.bind(f.meter, "alice", "alice-home").status == .bound)
        let tokenID = try f.registry.pool.read { db in
            try Row.fetchOne(
                db,
                sql: "SELECT b.token_id FROM binding b JOIN device d ON d.id = b.device_row WHERE d.device_id = ?",
                arguments: [f.meter.deviceID]
            )
        }
        let row = try #require(tokenID, "the bind left no binding row")
        #expect(row["token_id"] as Int64? == nil)
        #expect(
            try f.registry.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM pairing_token") }
                == tokensBefore
        )
        let bindAudit = try #require(try f.registry.audit.entries(deviceID: f.meter.deviceID).last)
        #expect(bindAudit.event == "bind")
        #expect(bindAudit.detail == nil)
        #expect(try f.registry.audit.entries().map(\.event) == eventsBefore + ["bind"])
    }

    @Test("A token of another home or an unknown token is invalid")
    func tokenOfAnotherHome() throws {
        let f = try Fixture()
        let bobs = try f.registry.directory.createToken(home: "bob-meters")
        f.expectCode(.tokenInvalid) { _ = try f.bind(f.meter, "alice", "alice-home", token: bobs.token) }
        f.expectCode(.tokenInvalid) { _ = try f.bind(f.meter, "alice", "alice-home", token: "nosuchtoken123") }
    }

    @Test("Registering the same IMEI again returns the same device id and records changed fields")
    func registrationIsIdempotentByIMEI() throws {
        let f = try Fixture()
        let again = try #require(
            try f.registry.directory.recordRegistration(
                ModuleIdentity(
                    imei: try IMEI("490154203237518"),
                    iccid: try ICCID("89860012345678901234"),
                    productID: "meter"
                ),
                deviceID: try! DeviceID("never-used"),
                labelCode: "NEVERUSED1",
                minted: true
            )
        )
        #expect(!again.created)
        #expect(again.device.deviceID == f.meter.deviceID)
        #expect(again.changedFields == ["iccid"])
        #expect(try f.registry.directory.device(imei: "490154203237518")?.iccid == "89860012345678901234")
    }

    @Test("Unbinding an unbound or unknown device says so")
    func unbindErrors() throws {
        let f = try Fixture()
        f.expectCode(.notBound) { try f.registry.bindings.unbind(deviceID: f.meter.deviceID, source: .cli) }
        f.expectCode(.unknownDevice) { try f.registry.bindings.unbind(deviceID: "ghost", source: .cli) }
    }

    @Test("Duplicate accounts and homes are refused; names with control characters are invalid")
    func namesAreValidated() throws {
        let f = try Fixture()
        f.expectCode(.accountExists) { try f.registry.directory.addAccount(name: "alice", role: .owner) }
        f.expectCode(.homeExists) { try f.registry.directory.addHome(name: "alice-home", owner: "alice") }
        f.expectCode(.homeAccessDenied) { try f.registry.directory.addHome(name: "gus-home", owner: "gus") }
        f.expectCode(.invalidArgument) { try f.registry.directory.addAccount(name: "evil\u{1B}[2J", role: .owner) }
        f.expectCode(.invalidArgument) { try f.registry.directory.addAccount(name: "", role: .owner) }
    }
}
