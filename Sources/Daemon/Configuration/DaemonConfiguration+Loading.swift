import Foundation
import Gateway
import Registry
import TOMLKit

#if canImport(Glibc)
import Glibc
#endif

extension DaemonConfiguration {
    /// Environment variables the daemon reads (besides the cloud's `NBGW_CLOUD_*`, read by
    /// the cloud's adapter, ``DaemonConfiguration/Cloud/check(environment:)``).
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
            if let key = configuration.cloud.settings.keys.sorted().first(where: Cloud.secretKeys.contains) {
                try checkSecretFilePermissions(
                    path,
                    key: "cloud.\(key)",
                    what: "the cloud \(key)",
                    moveTo: "its NBGW_CLOUD_* variable in the unit's EnvironmentFile (docs/cloud.md)"
                )
            }
            if !configuration.sims.isEmpty {
                try checkSecretFilePermissions(path, key: "sim", what: "SIM PINs", moveTo: "a [modem] sim_pins file")
            }
        }

        // Environment over the file.
        if let database = environment[EnvironmentKey.database], !database.isEmpty {
            configuration.store.path = database
            sources.environment.append(EnvironmentKey.database)
        }
        if let url = environment[EnvironmentKey.cloudURL], !url.isEmpty {
            do {
                try configuration.cloud.select(url)
            } catch {
                throw DaemonConfigurationError(file: nil, key: EnvironmentKey.cloudURL, error.message)
            }
            sources.environment.append(EnvironmentKey.cloudURL)
        }

        // Flags over everything.
        if let path = overrides.storePath { configuration.store.path = path }
        if let socket = overrides.controlSocket { configuration.control.socket = socket }
        if let cloud = overrides.cloud {
            do {
                try configuration.cloud.select(cloud)
            } catch {
                throw DaemonConfigurationError(file: nil, key: "--cloud", error.message)
            }
        }
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

        // The default store: $STATE_DIRECTORY/nbgw.sqlite under systemd, else the per-user XDG
        // default; the CLI finds the same file (RegistryLocation).
        if configuration.store.path == nil || configuration.store.path?.isEmpty == true {
            configuration.store.path = RegistryLocation.resolve(explicit: nil, environment: environment)
        }
        // The SIM PIN file is read now, so --check-config and a start both stop on a bad one.
        do {
            _ = try configuration.simPINBook()
        } catch {
            throw error
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
            try cloud.check(environment: environment)
        } catch {
            report("cloud", error.message)
        }
        if ingest.enabled, !ingest.listen.isLoopback, !ingest.insecureExpose, !ingest.servesTLS {
            report("ingest.listen", Self.exposureProblem(ingest.listen))
        }
        if metrics.isExposed, !metrics.allowRemote {
            report("metrics.listen", Self.metricsExposureProblem(metrics.listen))
        }
        // Read as this process reads it: run --check-config as the daemon's user for its answer.
        if let path = store.secretsKey {
            do {
                _ = try StoreSecretsKey.load(path: path)
            } catch {
                report("store.secrets_key", error.message)
            }
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
        for conflict in discovery.conflicts(withStaticPorts: ports) { report(conflict.key, conflict.message) }
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

    /// Why a non-loopback metrics `listen` is refused, and the ways out.
    static func metricsExposureProblem(_ listen: ListenAddress) -> String {
        "\(listen) is not a loopback address, and /metrics and /healthz answer anyone without authentication "
            + "with every module's IMEI, port, model, firmware and last error: listen on 127.0.0.1 and let "
            + "Prometheus reach it through a proxy or a tunnel, or set allow_remote = true in [metrics] "
            + "(docs/operations.md, \"Metrics and health\")"
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

    /// A file holding a secret (the cloud's, SIM PINs) must not be readable by group or others.
    static func checkSecretFilePermissions(
        _ path: String,
        key: String,
        what: String,
        moveTo: String
    ) throws(DaemonConfigurationError) {
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw DaemonConfigurationError(
                file: path,
                key: key,
                line: (try? String(contentsOfFile: path, encoding: .utf8)).map(TOMLKeyLocator.init)?.line(of: key),
                "the file holds \(what) but its mode is \(String(mode, radix: 8)) (group or others can read it): "
                    + "chmod 600 \(path) (owned by the daemon's user), or move \(what) to \(moveTo)"
            )
        }
    }
}

extension DaemonConfiguration {
    /// Reads a `[modem] sim_pins` file: `[[sim]]` entries only, in a file only its owner can read.
    public static func loadSIMPINs(file path: String) throws(DaemonConfigurationError) -> [SIM] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DaemonConfigurationError(
                file: path,
                key: nil,
                FileManager.default.fileExists(atPath: path)
                    ? "cannot read the SIM PIN file: it must be readable by the daemon's user (owner nbgw, mode 0600)"
                    : "the SIM PIN file does not exist: create it ([[sim]] iccid = \"…\" pin = \"…\"), or remove sim_pins"
            )
        }
        try checkSecretFilePermissions(path, key: "sim", what: "SIM PINs", moveTo: "a file of mode 0600")
        guard let text = String(data: data, encoding: .utf8) else {
            throw DaemonConfigurationError(file: path, key: nil, "the SIM PIN file is not UTF-8 text")
        }
        let root: TOMLTable
        do {
            root = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw DaemonConfigurationError(
                file: path,
                key: nil,
                line: error.source.begin.line,
                "TOML syntax error: \(error.description) (column \(error.source.begin.column))"
            )
        } catch {
            throw DaemonConfigurationError(file: path, key: nil, "cannot parse the SIM PIN file as TOML: \(error)")
        }
        var reader = ConfigurationReader(locator: TOMLKeyLocator(text: text))
        reader.checkKeys(root, at: "", allowed: ["sim"])
        let sims = reader.tables(root, "sim", at: "").map { readSIMs($0, &reader) } ?? []
        if !reader.problems.isEmpty { throw DaemonConfigurationError(file: path, problems: reader.problems) }
        return sims
    }

    /// Every SIM PIN the daemon may enter: `[[sim]]` in the config, then the `sim_pins` file's.
    public func simPINBook() throws(DaemonConfigurationError) -> SIMPINBook {
        var sims = self.sims
        if let file = modem.simPINsFile { sims += try Self.loadSIMPINs(file: file) }
        return SIMPINBook(sims.map { SIMPINBook.Entry(iccid: $0.iccid, imei: $0.imei, pin: $0.pin) })
    }
}
