import Foundation
import Pairing
import Registry
import TuyaCloud

#if canImport(Glibc)
import Glibc
#endif

extension DaemonConfiguration {
    /// Environment variables the daemon reads (besides the cloud's `NBGW_CLOUD_*`, read by
    /// ``DaemonConfiguration/Cloud/httpConfiguration(environment:)``).
    public enum EnvironmentKey {
        /// The store (as for the CLI).
        public static let database = "NBGW_DB"
        /// `local` or the HTTP cloud's base URL (as for the CLI).
        public static let cloudURL = "NBGW_CLOUD_URL"
    }

    /// Loads the effective configuration: built-in defaults, then the file (`explicitPath`, else
    /// `defaultPath` when it exists), then the environment (`NBGW_DB`, `NBGW_CLOUD_URL`), then the
    /// flags, and validates the result (an HTTP cloud's URL and credentials included).
    ///
    /// - Parameters:
    ///   - explicitPath: `--config PATH`; a missing file is an error.
    ///   - defaultPath: read only when it exists (``DaemonConfiguration/defaultPath``).
    ///   - environment: the process environment, passed in (libraries do not read it).
    ///   - overrides: the flags.
    /// - Throws: ``DaemonConfigurationError`` naming the file, the keys, their lines and what to do.
    public static func load(
        explicitPath: String?,
        defaultPath: String = DaemonConfiguration.defaultPath,
        environment: [String: String],
        overrides: DaemonOverrides = DaemonOverrides()
    ) throws(DaemonConfigurationError) -> (configuration: DaemonConfiguration, sources: Sources) {
        var configuration = DaemonConfiguration()
        var sources = Sources(file: nil, environment: [], flags: !overrides.isEmpty)
        let path = explicitPath ?? (FileManager.default.fileExists(atPath: defaultPath) ? defaultPath : nil)
        if let path {
            let text = try readFile(path, explicit: explicitPath != nil)
            configuration = try parse(toml: text, file: path)
            sources.file = path
            if configuration.cloud.settings[CloudConfiguration.SettingsKey.secret] != nil {
                try checkSecretFilePermissions(path)
            }
        }

        // Environment over the file.
        if let database = environment[EnvironmentKey.database], !database.isEmpty {
            configuration.store.path = database
            sources.environment.append(EnvironmentKey.database)
        }
        if let url = environment[EnvironmentKey.cloudURL], !url.isEmpty {
            configuration.cloud.select(url)
            sources.environment.append(EnvironmentKey.cloudURL)
        }

        // Flags over everything.
        if let path = overrides.storePath { configuration.store.path = path }
        if let cloud = overrides.cloud { configuration.cloud.select(cloud) }
        if let udev = overrides.udev { configuration.discovery.udev = udev }
        for port in overrides.ports {
            configuration.ports.removeAll { $0.path == port.path }
            configuration.ports.append(port)
        }
        if let listen = overrides.metricsListen { configuration.metrics.listen = listen }
        if let enabled = overrides.metricsEnabled { configuration.metrics.enabled = enabled }
        if let enabled = overrides.ingestEnabled { configuration.ingest.enabled = enabled }
        if let listen = overrides.ingestListen { configuration.ingest.listen = listen }
        if let grace = overrides.gracePeriod { configuration.shutdown.gracePeriod = grace }
        if let level = overrides.logLevel { configuration.log.level = level }

        // The default store: like the CLI (XDG state directory, else ~/.local/state), so both find it.
        if configuration.store.path == nil || configuration.store.path?.isEmpty == true {
            configuration.store.path = RegistryLocation.resolve(explicit: nil, environment: environment)
        }
        try configuration.validate(file: sources.file, environment: environment)
        return (configuration, sources)
    }

    /// Checks what only the merged configuration can tell: the cloud's URL and credentials, an
    /// exposed ingest listener, the ingest API's TLS certificate and key files.
    func validate(file: String?, environment: [String: String]) throws(DaemonConfigurationError) {
        var problems: [DaemonConfigurationError.Problem] = []
        let locator = file.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) }.map(TOMLKeyLocator.init)
        func report(_ key: String, _ message: String) {
            problems.append(.init(key: key, line: locator?.line(of: key), message: message))
        }
        do {
            _ = try cloud.httpConfiguration(environment: environment)
        } catch {
            report("cloud", error.message)
        }
        if ingest.enabled, !ingest.listen.isLoopback, !ingest.insecureExpose, !ingest.servesTLS {
            report("ingest.listen", Self.exposureProblem(ingest.listen))
        }
        // The files are read now, so --check-config and a start both stop on a wrong certificate
        // or key instead of every handshake failing later.
        do {
            _ = try ingest.loadTLS()
        } catch {
            report(error.configurationKey, error.message)
        }
        if metrics.enabled, ingest.enabled, metrics.listen == ingest.listen, metrics.listen.port != 0 {
            report("ingest.listen", "\(ingest.listen) is also metrics.listen: give each its own port")
        }
        if !discovery.udev, ports.isEmpty {
            report(
                "discovery.udev",
                "udev discovery is off and no [[ports]] are listed, so no modem would ever be found: add [[ports]] "
                    + "entries (or --port PATH) or set udev = true"
            )
        }
        if !problems.isEmpty {
            throw DaemonConfigurationError(file: file, problems: problems)
        }
    }

    private static func readFile(_ path: String, explicit: Bool) throws(DaemonConfigurationError) -> String {
        guard FileManager.default.fileExists(atPath: path) else {
            throw DaemonConfigurationError(
                file: path,
                key: nil,
                "the file does not exist: pass an existing file to --config, or omit --config to use "
                    + "\(DaemonConfiguration.defaultPath) when present, else the built-in defaults"
            )
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DaemonConfigurationError(
                file: path,
                key: nil,
                "cannot read the file: check its permissions (the daemon's user must be able to read it, e.g. "
                    + "root:nbgw mode 0640)"
            )
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw DaemonConfigurationError(file: path, key: nil, "the file is not UTF-8 text: save it as UTF-8")
        }
        return text
    }

    /// A file holding the cloud secret must not be readable by group or others.
    private static func checkSecretFilePermissions(_ path: String) throws(DaemonConfigurationError) {
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw DaemonConfigurationError(
                file: path,
                key: "cloud.secret",
                line: (try? String(contentsOfFile: path, encoding: .utf8)).map(TOMLKeyLocator.init)?.line(
                    of: "cloud.secret"
                ),
                "the file holds the cloud secret but its mode is \(String(mode, radix: 8)) (group or others can "
                    + "read it): chmod 600 \(path), or move the secret to NBGW_CLOUD_SECRET in the unit's "
                    + "EnvironmentFile"
            )
        }
    }
}

extension DaemonConfiguration.Cloud {
    /// The HTTP cloud's configuration (URL, credentials from the environment or the file,
    /// timeouts), or nil for the local cloud.
    public func httpConfiguration(environment: [String: String]) throws(NBGWError) -> CloudConfiguration? {
        guard mode == .http else { return nil }
        return try CloudConfiguration.resolve(baseURL: url, settings: settings, environment: environment)
    }

    /// `local` selects the embedded cloud; anything else is the HTTP cloud's URL.
    mutating func select(_ value: String) {
        if value == "local" {
            mode = .local
            url = nil
        } else {
            mode = .http
            url = value
        }
    }
}
