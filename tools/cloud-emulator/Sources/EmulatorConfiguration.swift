import CloudServer
import Foundation
import NBGWCore
import Pairing
import TuyaCloud

/// How an emulator instance behaves: where it listens, whose requests it accepts, and how long
/// tokens live. Faults start from ``faults`` and can be changed at run time (``FaultInjector``,
/// or `PUT /admin/faults`).
public struct EmulatorConfiguration: Sendable {
    /// Listen address. Why loopback by default: the emulator speaks plain HTTP and is meant for
    /// tests, the demo and evaluators on one machine.
    public var host: String
    /// 0 picks a free port (tests); ``RunningCloudEmulator/port`` tells which.
    public var port: Int
    /// The emulator's own SQLite file (created if missing).
    public var databasePath: String
    /// The one project (client id and secret) it accepts.
    public var credentials: CloudCredentials
    /// Access token lifetime (Tuya: 7200 s, pairing-anchors §1.5).
    public var tokenLifetime: Duration
    /// Pairing token lifetime (10 minutes, §1.3).
    public var pairingTokenLifetime: Duration
    /// How far a request's `t` may be from the emulator's clock before it answers 1013. Tuya does
    /// not publish its window; 5 minutes is the emulator's choice.
    public var allowedClockSkew: Duration
    /// The prefix of the labels it issues and recognises.
    public var labelBase: String
    /// The `region` of pairing tokens.
    public var region: String
    public var faults: EmulatorFaults
    /// Time for `t` checks and token expiry; tests inject a manual clock.
    public var wallClock: any WallClock

    public init(
        host: String = "127.0.0.1",
        port: Int = 0,
        databasePath: String,
        credentials: CloudCredentials,
        tokenLifetime: Duration = .seconds(7200),
        pairingTokenLifetime: Duration = .seconds(600),
        allowedClockSkew: Duration = .seconds(300),
        labelBase: String = CloudConfiguration.defaultLabelBase,
        region: String = "EU",
        faults: EmulatorFaults = EmulatorFaults(),
        wallClock: any WallClock = SystemWallClock()
    ) {
        self.host = host
        self.port = port
        self.databasePath = databasePath
        self.credentials = credentials
        self.tokenLifetime = tokenLifetime
        self.pairingTokenLifetime = pairingTokenLifetime
        self.allowedClockSkew = allowedClockSkew
        self.labelBase = labelBase.hasSuffix("/") ? labelBase : labelBase + "/"
        self.region = region
        self.faults = faults
        self.wallClock = wallClock
    }
}

extension EmulatorConfiguration {
    /// The API's parameters, as the shared route handlers take them.
    public var settings: CloudServerSettings {
        CloudServerSettings(
            tokenLifetime: tokenLifetime,
            pairingTokenLifetime: pairingTokenLifetime,
            allowedClockSkew: allowedClockSkew,
            labelBase: labelBase,
            region: region
        )
    }

    /// A configuration from plain values (the executable, which does not link nbgw's libraries).
    public static func make(
        host: String,
        port: Int,
        databasePath: String,
        clientID: String,
        secret: String,
        tokenLifetime: Duration,
        pairingTokenLifetime: Duration,
        allowedClockSkew: Duration,
        labelBase: String,
        faults: EmulatorFaults
    ) throws -> EmulatorConfiguration {
        let credentials: CloudCredentials
        do {
            credentials = try CloudCredentials(clientID: clientID, secret: secret)
        } catch {
            throw CloudEmulatorError(error.message)
        }
        return EmulatorConfiguration(
            host: host,
            port: port,
            databasePath: databasePath,
            credentials: credentials,
            tokenLifetime: tokenLifetime,
            pairingTokenLifetime: pairingTokenLifetime,
            allowedClockSkew: allowedClockSkew,
            labelBase: labelBase,
            faults: faults
        )
    }
}
