import Gateway
import Ingest

extension DaemonConfiguration.Modem {
    /// The gateway's configuration: the bring-up plan (APN, RATs, bands, PSM, eDRX) and the
    /// supervisors' timing.
    ///
    /// The plan's technology keys are ATKit's `RadioTechnology`, built through `RawRepresentable`
    /// from the validated names in ``technologyNames`` (a name the config accepts is one ATKit knows).
    public var gatewayConfiguration: GatewayConfiguration {
        var configuration = GatewayConfiguration(
            registrationTimeout: registrationTimeout,
            signalPollInterval: signalPollInterval,
            backoffInitial: backoffInitial,
            backoffCap: backoffCap,
            productID: productID
        )
        configuration.plan.apn = apn
        configuration.keepsRadioOff = keepsRadioOff
        configuration.maxResets = maxResets
        configuration.simPollInterval = simPollInterval
        if let technologies {
            configuration.plan.technologies = Self.values(technologies)
        }
        for (name, bands) in bands {
            Self.assign(&configuration.plan.bands, name, bands)
        }
        switch powerSaving {
        case .unchanged:
            break
        case .off:
            configuration.plan.powerSavingDisabled = true
        case .on(let tau, let active):
            configuration.plan.powerSaving = .init(periodicTAU: tau, activeTime: active)
        }
        for (name, cycle) in edrx {
            Self.assign(&configuration.plan.edrx, name, cycle == 0 ? nil : cycle)
        }
        return configuration
    }

    /// Values of a `String`-backed enumeration, in order, for the names it knows.
    static func values<Value: RawRepresentable>(_ names: [String]) -> [Value] where Value.RawValue == String {
        names.compactMap(Value.init(rawValue:))
    }

    /// `dictionary[Key(rawValue: name)] = value` when the key type knows the name.
    static func assign<Key: RawRepresentable & Hashable, Value>(
        _ dictionary: inout [Key: Value],
        _ name: String,
        _ value: Value
    ) where Key.RawValue == String {
        guard let key = Key(rawValue: name) else { return }
        dictionary[key] = value
    }
}

extension DaemonConfiguration.Ingest {
    /// The ingest service's configuration (docs/ingest.md), without TLS: ``loadTLS()`` reads the
    /// files into ``IngestConfiguration/tls``.
    public var ingestConfiguration: IngestConfiguration {
        var configuration = IngestConfiguration(
            host: listen.host,
            port: listen.port,
            maxBodyBytes: maxBodyBytes,
            rateLimit: rateLimit > 0
                ? .init(requestsPerSecond: rateLimit, burst: burst ?? max(1, Int(rateLimit * 2))) : nil,
            bindTimeout: bindTimeout,
            serverName: "nbgwd"
        )
        configuration.connectionLimits.maxConnections = maxConnections
        configuration.connectionLimits.maxConnectionsPerClient = maxConnectionsPerClient
        configuration.connectionLimits.idleTimeout = idleTimeout
        configuration.publicOrigin = publicOrigin
        configuration.trustedProxies = Set(trustedProxies)
        return configuration
    }

    /// Reads and checks `tls_certificate` and `tls_key` (``IngestTLS/load(certificate:key:)``);
    /// nil when they are not both set.
    public func loadTLS() throws(IngestTLSError) -> IngestTLS? {
        guard let tlsCertificate, let tlsKey else { return nil }
        return try IngestTLS.load(certificate: tlsCertificate, key: tlsKey)
    }
}
