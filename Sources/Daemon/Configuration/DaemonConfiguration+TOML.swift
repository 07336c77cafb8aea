import CloudCatalogue
import Logging
import NBGWCore
import TOMLKit

#if canImport(Glibc)
import Glibc
#endif

extension DaemonConfiguration {
    /// The top-level tables a config file may have.
    static let sections = [
        "store", "control", "sim", "cloud", "modem", "discovery", "ports", "metrics", "ingest", "shutdown", "log",
    ]

    /// Serial speeds a `[[ports]]` entry may name (termios `B*` constants up to 4 Mbit/s).
    public static let baudRates = [
        1200, 2400, 4800, 9600, 19200, 38400, 57600, 115_200, 230_400, 460_800, 500_000, 576_000, 921_600,
        1_000_000, 1_152_000, 1_500_000, 2_000_000, 3_000_000, 4_000_000,
    ]

    /// Parses and validates a config file's text over the built-in defaults.
    ///
    /// - Parameter file: the file's path, for messages.
    /// - Throws: every problem found (syntax error with its line; unknown keys; wrong types;
    ///   values out of range), each naming the key and its line.
    public static func parse(toml text: String, file: String?) throws(DaemonConfigurationError) -> DaemonConfiguration {
        if let problem = TOMLPreflight.problem(in: text) {
            throw DaemonConfigurationError(
                file: file,
                key: nil,
                line: problem.line,
                "TOML syntax error at column \(problem.column): found \(problem.foundDescription), expected "
                    + "\(problem.expected); fix the syntax (https://toml.io/en/v1.0.0), or start from "
                    + "examples/nbgwd.toml"
            )
        }
        let root: TOMLTable
        do {
            root = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw DaemonConfigurationError(
                file: file,
                key: nil,
                line: error.source.begin.line,
                // toml++ quotes the offending source text in its description: escaped, as every echo of
                // the file is (fuzz-toml found a raw tab; an ESC would reach the operator's terminal).
                "TOML syntax error: \(error.description.escapedForDisplay(limit: 200)) (column "
                    + "\(error.source.begin.column)); fix the syntax "
                    + "(https://toml.io/en/v1.0.0), or start from examples/nbgwd.toml"
            )
        } catch {
            throw DaemonConfigurationError(file: file, key: nil, "cannot parse the file as TOML: \(error)")
        }
        var reader = ConfigurationReader(locator: TOMLKeyLocator(text: text))
        var configuration = DaemonConfiguration()
        reader.checkKeys(root, at: "", allowed: sections + [hooksSection, labelsSection, consoleSection])
        if let table = reader.table(root, "store", at: "") {
            configuration.store = readStore(table, &reader)
        }
        if let table = reader.table(root, "control", at: "") {
            configuration.control = readControl(table, &reader)
        }
        if let tables = reader.tables(root, "sim", at: "") {
            configuration.sims = readSIMs(tables, &reader)
        }
        if let table = reader.table(root, "cloud", at: "") {
            configuration.cloud = readCloud(table, &reader)
        }
        if let table = reader.table(root, "modem", at: "") {
            configuration.modem = readModem(table, &reader)
        }
        if let table = reader.table(root, "discovery", at: "") {
            configuration.discovery = readDiscovery(table, file: file, &reader)
        }
        if let tables = reader.tables(root, "ports", at: "") {
            configuration.ports = readPorts(tables, &reader)
        }
        if let table = reader.table(root, "metrics", at: "") {
            reader.checkKeys(table, at: "metrics", allowed: ["enabled", "listen", "allow_remote"])
            configuration.metrics.enabled = reader.bool(table, "enabled", at: "metrics") ?? true
            configuration.metrics.allowRemote = reader.bool(table, "allow_remote", at: "metrics") ?? false
            if let address = readAddress(table, "listen", at: "metrics", &reader) {
                configuration.metrics.listen = address
            }
        }
        if let table = reader.table(root, "ingest", at: "") {
            configuration.ingest = readIngest(table, &reader)
        }
        if let table = reader.table(root, "shutdown", at: "") {
            reader.checkKeys(table, at: "shutdown", allowed: ["grace_period"])
            if let grace = reader.seconds(table, "grace_period", at: "shutdown", in: 0.1...300, example: "10") {
                configuration.shutdown.gracePeriod = grace
            }
        }
        if let table = reader.table(root, "log", at: "") {
            reader.checkKeys(table, at: "log", allowed: ["level"])
            if let text = reader.string(table, "level", at: "log", example: "\"info\"") {
                if let level = Logger.Level(rawValue: text) {
                    configuration.log.level = level
                } else {
                    reader.report(
                        "log.level",
                        "unknown level \(text.escapedForDisplay()): use one of "
                            + Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
                    )
                }
            }
        }
        if let table = reader.table(root, hooksSection, at: "") {
            configuration.hooks = readHooks(table, &reader)
        }
        if let table = reader.table(root, labelsSection, at: "") {
            configuration.labels = readLabels(table, &reader)
        }
        if let table = reader.table(root, consoleSection, at: "") {
            configuration.console = readConsole(table, &reader)
        }
        if !reader.problems.isEmpty {
            throw DaemonConfigurationError(file: file, problems: reader.problems)
        }
        return configuration
    }

    private static func readStore(_ table: TOMLTable, _ reader: inout ConfigurationReader) -> Store {
        reader.checkKeys(table, at: "store", allowed: ["path", "group", "secrets_key"])
        var store = Store()
        if let key = reader.string(table, "secrets_key", at: "store", example: "\"/etc/nbgw/secrets.key\"") {
            if key.hasPrefix("/") {
                store.secretsKey = key
            } else {
                reader.report(
                    "store.secrets_key",
                    "\(key.escapedForDisplay()) is not an absolute path: write secrets_key = "
                        + "\"/etc/nbgw/secrets.key\", or leave it out to use the key systemd hands nbgwd "
                        + "(docs/operations.md, \"Module credentials\")"
                )
            }
        }
        if let group = reader.string(table, "group", at: "store", example: "\"nbgw\"") {
            // A group name (useradd(8)'s rules) or a number.
            if !group.isEmpty, group.count <= 32,
                group.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_".contains($0)) })
            {
                store.group = group
            } else {
                reader.report(
                    "store.group",
                    "\(group.escapedForDisplay()) is not a group name or number: write group = \"nbgw\""
                )
            }
        }
        guard let path = reader.string(table, "path", at: "store", example: "\"/var/lib/nbgw/nbgw.sqlite\"") else {
            return store
        }
        guard path.hasPrefix("/") else {
            reader.report(
                "store.path",
                "\(path.escapedForDisplay()) is not an absolute path (the daemon's working directory is /); write "
                    + "path = \"/var/lib/nbgw/nbgw.sqlite\""
            )
            return store
        }
        store.path = path
        return store
    }

    private static func readControl(_ table: TOMLTable, _ reader: inout ConfigurationReader) -> Control {
        reader.checkKeys(table, at: "control", allowed: ["enabled", "socket"])
        var control = Control()
        control.enabled = reader.bool(table, "enabled", at: "control") ?? true
        if let socket = reader.string(table, "socket", at: "control", example: "\"/run/nbgw/control.sock\"") {
            if socket.hasPrefix("/"), socket.utf8.count < 108 {
                control.socket = socket
            } else {
                reader.report(
                    "control.socket",
                    "\(socket.escapedForDisplay()) is not an absolute path of at most 107 bytes (a Unix socket's limit): "
                        + "write socket = \"/run/nbgw/control.sock\""
                )
            }
        }
        return control
    }

    /// `[[sim]]` entries: `iccid` or `imei`, and `pin` (4 to 8 digits).
    static func readSIMs(_ tables: [TOMLTable], _ reader: inout ConfigurationReader) -> [SIM] {
        var sims: [SIM] = []
        for (index, table) in tables.enumerated() {
            let path = "sim[\(index)]"
            reader.checkKeys(table, at: path, allowed: ["iccid", "imei", "pin"])
            let iccid = reader.string(table, "iccid", at: path, example: "\"89882280666027595366\"")
            let imei = reader.string(table, "imei", at: path, example: "\"866971030221959\"")
            let pin = reader.string(table, "pin", at: path, example: "\"1234\"")
            if (iccid == nil) == (imei == nil) {
                reader.report(path, "a [[sim]] entry names its SIM by iccid = \"89…\" or by imei = \"…\" (one of them)")
                continue
            }
            if let iccid, !(18...22).contains(iccid.count) || !iccid.allSatisfy(\.isHexDigit) {
                reader.report(
                    "\(path).iccid",
                    "\(iccid.escapedForDisplay()) is not an ICCID (18 to 22 digits, as AT+CCID prints it)"
                )
                continue
            }
            if let imei, imei.count != 15 || !imei.allSatisfy(\.isNumber) {
                reader.report("\(path).imei", "\(imei.escapedForDisplay()) is not an IMEI (15 digits)")
                continue
            }
            guard let pin else {
                if table["pin"] == nil { reader.report(path, "a [[sim]] entry needs pin = \"…\" (4 to 8 digits)") }
                continue
            }
            // Never echo the value: it is a secret.
            guard (4...8).contains(pin.count), pin.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                reader.report("\(path).pin", "the PIN is not 4 to 8 digits")
                continue
            }
            sims.append(SIM(iccid: iccid?.uppercased(), imei: imei, pin: pin))
        }
        return sims
    }

    private static func readCloud(_ table: TOMLTable, _ reader: inout ConfigurationReader) -> Cloud {
        reader.checkKeys(table, at: "cloud", allowed: CloudCatalogue.commonKeys + Cloud.settingsKeys)
        var cloud = Cloud()
        let modes = CloudCatalogue.modes.map { "\"\($0)\"" }.joined(separator: ", ")
        if let text = reader.string(table, "mode", at: "cloud", example: "\"local\"") {
            if CloudCatalogue.adapter(mode: text) != nil {
                cloud.mode = text
            } else {
                reader.report(
                    "cloud.mode",
                    "unknown mode \(text.escapedForDisplay()): use one of \(modes) (\"local\": the embedded cloud, "
                        + "no network; the others with url = \"https://HOST\", docs/cloud.md)"
                )
            }
        }
        cloud.url = reader.string(table, "url", at: "cloud", example: "\"https://openapi.tuyaeu.com\"")
        if let wait = reader.seconds(table, "sync_wait", at: "cloud", in: 0...120, example: "2") {
            cloud.syncWait = wait
        }
        for key in Cloud.settingsKeys {
            guard let value = table[key] else { continue }
            if let text = value.string {
                cloud.settings[key] = text
            } else if let number = value.int {
                cloud.settings[key] = String(number)
            } else if let number = value.double {
                cloud.settings[key] = String(number)
            } else {
                reader.report("cloud.\(key)", "expected a string or a number, found \(reader.describe(value, of: key))")
            }
        }
        if table["mode"] == nil, let url = cloud.url {
            // A url alone names its cloud, as `--cloud URL` does.
            if let selection = try? CloudCatalogue.selection(spec: url) { cloud.mode = selection.mode }
        }
        if !cloud.isRemote, let url = cloud.url {
            // Without a mode, a url no remote cloud claims (`htps://…`, `""`) used to leave the local
            // cloud running and the url ignored, and --check-config printed a file nbgwd refuses
            // (fuzz-toml).
            reader.report(
                "cloud.url",
                table["mode"] != nil
                    ? "a url is set but mode = \"local\": remove the url, or set the mode of that cloud (\(modes))"
                    : "\(url.urlForDisplay()) names no remote cloud: use the cloud's https:// URL, set the mode "
                        + "of that cloud (\(modes)), or remove the url for the local cloud"
            )
        }
        let ownKeys = CloudCatalogue.adapter(mode: cloud.mode)?.settingsKeys ?? []
        for key in Cloud.settingsKeys where table[key] != nil && !ownKeys.contains(key) {
            reader.report(
                "cloud.\(key)",
                "\(key) is not a setting of mode \"\(cloud.mode)\"; remove it, or set the mode it belongs to"
            )
        }
        return cloud
    }

    private static func readModem(_ table: TOMLTable, _ reader: inout ConfigurationReader) -> Modem {
        reader.checkKeys(
            table,
            at: "modem",
            allowed: [
                "apn", "rat", "bands", "psm", "edrx", "registration_timeout", "signal_poll_interval", "backoff",
                "product", "radio", "max_resets", "sim_poll_interval", "sim_pins",
            ]
        )
        var modem = Modem()
        if let apn = reader.string(table, "apn", at: "modem", example: "\"iot.example\"") {
            // 3GPP TS 23.003 §9.1: an APN is at most 100 octets of labels (letters, digits, '-', '.').
            if apn.utf8.count <= 100,
                apn.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._".contains($0)) })
            {
                modem.apn = apn
            } else {
                reader.report(
                    "modem.apn",
                    "\(apn.escapedForDisplay()) is not an APN: use up to 100 letters, digits, '-' and '.' "
                        + "(\"\" lets the network choose)"
                )
            }
        }
        if let names = reader.strings(table, "rat", at: "modem", example: "[\"nb-iot\", \"lte-m\"]") {
            if names.isEmpty {
                reader.report("modem.rat", "the list is empty: name at least one of \(technologyList), or remove rat")
            } else if let unknown = names.first(where: { !Modem.technologyNames.contains($0) }) {
                reader.report(
                    "modem.rat",
                    "unknown radio technology \(unknown.escapedForDisplay()): use \(technologyList)"
                )
            } else if Set(names).count != names.count {
                reader.report("modem.rat", "a technology is listed twice: list each once, in preference order")
            } else {
                modem.technologies = names
            }
        }
        if let bands = reader.table(table, "bands", at: "modem") {
            reader.checkKeys(bands, at: "modem.bands", allowed: Modem.technologyNames)
            for key in bands.keys.sorted() where Modem.technologyNames.contains(key) {
                // E-UTRA operating bands (3GPP TS 36.101 §5.5) are numbered 1 to 88; NR's go to 256.
                if let numbers = reader.integers(bands, key, at: "modem.bands", in: 1...256, example: "[3, 8, 20]") {
                    modem.bands[key] = numbers
                }
            }
        }
        if let psm = reader.table(table, "psm", at: "modem") {
            modem.powerSaving = readPowerSaving(psm, &reader)
        }
        if let edrx = reader.table(table, "edrx", at: "modem") {
            reader.checkKeys(edrx, at: "modem.edrx", allowed: Modem.technologyNames)
            for key in edrx.keys.sorted() where Modem.technologyNames.contains(key) {
                // eDRX cycles run from 5.12 s to 10485.76 s (3GPP TS 24.008 §10.5.5.32); 0 switches eDRX off.
                guard
                    let cycle = reader.number(
                        edrx,
                        key,
                        at: "modem.edrx",
                        in: 0...10485.76,
                        unit: "seconds",
                        example: "20.48"
                    )
                else {
                    continue
                }
                if cycle != 0, cycle < 5.12 {
                    reader.report(
                        "modem.edrx.\(key)",
                        "\(cycle.formatted) s is shorter than the shortest eDRX cycle (5.12 s): use 5.12 to 10485.76, "
                            + "or 0 to switch eDRX off"
                    )
                } else {
                    modem.edrx[key] = cycle
                }
            }
        }
        if let timeout = reader.seconds(table, "registration_timeout", at: "modem", in: 1...86400, example: "120") {
            modem.registrationTimeout = timeout
        }
        if let interval = reader.seconds(table, "signal_poll_interval", at: "modem", in: 1...86400, example: "60") {
            modem.signalPollInterval = interval
        }
        if let backoff = reader.table(table, "backoff", at: "modem") {
            reader.checkKeys(backoff, at: "modem.backoff", allowed: ["initial", "cap"])
            if let initial = reader.seconds(backoff, "initial", at: "modem.backoff", in: 0.01...3600, example: "1") {
                modem.backoffInitial = initial
            }
            if let cap = reader.seconds(backoff, "cap", at: "modem.backoff", in: 0.01...86400, example: "60") {
                modem.backoffCap = cap
            }
            if modem.backoffCap < modem.backoffInitial {
                reader.report(
                    "modem.backoff.cap",
                    "the cap (\(modem.backoffCap)) is shorter than the initial delay (\(modem.backoffInitial)): "
                        + "make cap at least initial"
                )
            }
        }
        if let radio = reader.string(table, "radio", at: "modem", example: "\"on\"") {
            switch radio {
            case "on": modem.keepsRadioOff = false
            case "off": modem.keepsRadioOff = true
            default: reader.report("modem.radio", "\(radio.escapedForDisplay()) is neither \"on\" nor \"off\"")
            }
        }
        if let resets = reader.integer(table, "max_resets", at: "modem", in: 1...100, unit: "resets") {
            modem.maxResets = resets
        }
        if let interval = reader.seconds(table, "sim_poll_interval", at: "modem", in: 1...3600, example: "10") {
            modem.simPollInterval = interval
        }
        if let file = reader.string(table, "sim_pins", at: "modem", example: "\"/etc/nbgw/sim-pins.toml\"") {
            if file.hasPrefix("/") {
                modem.simPINsFile = file
            } else {
                reader.report(
                    "modem.sim_pins",
                    "\(file.escapedForDisplay()) is not an absolute path: write sim_pins = \"/etc/nbgw/sim-pins.toml\""
                )
            }
        }
        if let product = reader.string(table, "product", at: "modem", example: "\"bc66-meter\"") {
            if !product.isEmpty, product.count <= 64,
                product.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) })
            {
                modem.productID = product
            } else {
                reader.report(
                    "modem.product",
                    "\(product.escapedForDisplay()) is not a product id: use 1 to 64 letters, digits, '-', '_' or '.'"
                )
            }
        }
        return modem
    }

    private static var technologyList: String {
        Modem.technologyNames.map { "\"\($0)\"" }.joined(separator: ", ")
    }

    private static func readPowerSaving(_ table: TOMLTable, _ reader: inout ConfigurationReader) -> Modem.PowerSaving {
        reader.checkKeys(table, at: "modem.psm", allowed: ["enabled", "tau", "active"])
        let enabled = reader.bool(table, "enabled", at: "modem.psm")
        // T3412 extended reaches 320 h × 31 and T3324 6 min × 31 (3GPP TS 24.008 §10.5.7.4a, §10.5.7.3).
        let tau = reader.integer(table, "tau", at: "modem.psm", in: 2...35_712_000, unit: "seconds")
        let active = reader.integer(table, "active", at: "modem.psm", in: 0...11160, unit: "seconds")
        switch enabled {
        case false?:
            return .off
        case true?:
            guard let tau, let active else {
                if table["tau"] == nil || table["active"] == nil {
                    reader.report(
                        "modem.psm",
                        "PSM is enabled without its timers: set tau (Periodic-TAU, e.g. 86400) and active "
                            + "(Active-Time, e.g. 60) in seconds"
                    )
                }
                return .unchanged
            }
            return .on(periodicTAU: tau, activeTime: active)
        case nil:
            if table["enabled"] == nil, table["tau"] != nil || table["active"] != nil {
                reader.report(
                    "modem.psm",
                    "timers are set but not enabled: add enabled = true (or false to switch PSM off)"
                )
            }
            return .unchanged
        }
    }

    private static func readPorts(_ tables: [TOMLTable], _ reader: inout ConfigurationReader) -> [StaticPort] {
        var ports: [StaticPort] = []
        for (index, table) in tables.enumerated() {
            let path = "ports[\(index)]"
            reader.checkKeys(table, at: path, allowed: ["path", "baud"])
            guard let device = reader.string(table, "path", at: path, example: "\"/dev/ttyAMA0\"") else {
                if table["path"] == nil {
                    reader.report(path, "a [[ports]] entry needs path = \"/dev/tty…\"")
                }
                continue
            }
            guard device.hasPrefix("/") else {
                reader.report(
                    "\(path).path",
                    "\(device.escapedForDisplay()) is not an absolute device path: write path = \"/dev/ttyAMA0\""
                )
                continue
            }
            var baud: Int?
            if let value = reader.integer(table, "baud", at: path, in: 300...4_000_000) {
                if baudRates.contains(value) {
                    baud = value
                } else {
                    reader.report(
                        "\(path).baud",
                        "\(value) is not a standard serial speed: use one of "
                            + baudRates.map(String.init).joined(separator: ", ")
                    )
                }
            }
            if ports.contains(where: { $0.path == device }) {
                reader.report("\(path).path", "\(device.escapedForDisplay()) is listed twice: keep one [[ports]] entry")
                continue
            }
            ports.append(StaticPort(path: device, baud: baud))
        }
        return ports
    }

    private static func readIngest(_ table: TOMLTable, _ reader: inout ConfigurationReader) -> Ingest {
        reader.checkKeys(
            table,
            at: "ingest",
            allowed: [
                "enabled", "listen", "rate_limit", "burst", "max_body", "bind_timeout", "insecure_expose",
                "tls_certificate", "tls_key", "max_connections", "max_connections_per_client", "idle_timeout",
                "public_origin", "trusted_proxies",
            ]
        )
        var ingest = Ingest()
        ingest.enabled = reader.bool(table, "enabled", at: "ingest") ?? false
        if let address = readAddress(table, "listen", at: "ingest", &reader) {
            ingest.listen = address
        }
        if let rate = reader.number(
            table,
            "rate_limit",
            at: "ingest",
            in: 0...100_000,
            unit: "requests per second",
            example: "50"
        ) {
            ingest.rateLimit = rate
        }
        ingest.burst = reader.integer(table, "burst", at: "ingest", in: 1...1_000_000, unit: "requests")
        if let bytes = reader.integer(table, "max_body", at: "ingest", in: 256...1_048_576, unit: "bytes") {
            ingest.maxBodyBytes = bytes
        }
        if let timeout = reader.seconds(table, "bind_timeout", at: "ingest", in: 0.1...3600, example: "10") {
            ingest.bindTimeout = timeout
        }
        ingest.insecureExpose = reader.bool(table, "insecure_expose", at: "ingest") ?? false
        readListenerLimits(table, into: &ingest, &reader)
        let examples = ["tls_certificate": "\"/etc/nbgw/ingest.crt\"", "tls_key": "\"/etc/nbgw/ingest.key\""]
        for key in ["tls_certificate", "tls_key"] {
            guard let path = reader.string(table, key, at: "ingest", example: examples[key] ?? "") else { continue }
            guard path.hasPrefix("/") else {
                reader.report(
                    "ingest.\(key)",
                    "\(path.escapedForDisplay()) is not an absolute path (the daemon's working directory is /): write "
                        + "\(key) = \(examples[key] ?? "")"
                )
                continue
            }
            if key == "tls_key" { ingest.tlsKey = path } else { ingest.tlsCertificate = path }
        }
        // Why both or neither: a certificate without its key (or the reverse) cannot serve HTTPS, and
        // falling back to plain HTTP would expose what the operator meant to protect.
        if (table["tls_certificate"] == nil) != (table["tls_key"] == nil) {
            let (present, missing) =
                table["tls_key"] == nil ? ("tls_certificate", "tls_key") : ("tls_key", "tls_certificate")
            reader.report(
                "ingest.\(present)",
                "\(present) is set without \(missing): set \(missing) = \(examples[missing] ?? "") too (PEM files: the "
                    + "certificate chain and its private key), or remove \(present) to serve plain HTTP"
            )
        }
        let tlsRequested = table["tls_certificate"] != nil || table["tls_key"] != nil
        if ingest.enabled, !ingest.listen.isLoopback, !ingest.insecureExpose, !tlsRequested {
            reader.report("ingest.listen", exposureProblem(ingest.listen))
        }
        return ingest
    }

    /// `max_connections`, `max_connections_per_client`, `idle_timeout`, `public_origin` and
    /// `trusted_proxies` (docs/operations.md, "Hostile load").
    private static func readListenerLimits(
        _ table: TOMLTable,
        into ingest: inout Ingest,
        _ reader: inout ConfigurationReader
    ) {
        if let count = reader.integer(table, "max_connections", at: "ingest", in: 16...65_536, unit: "connections") {
            ingest.maxConnections = count
        }
        if let count = reader.integer(
            table,
            "max_connections_per_client",
            at: "ingest",
            in: 1...65_536,
            unit: "connections"
        ) {
            ingest.maxConnectionsPerClient = count
        }
        if let idle = reader.seconds(table, "idle_timeout", at: "ingest", in: 1...3600, example: "20") {
            ingest.idleTimeout = idle
        }
        if let origin = reader.string(table, "public_origin", at: "ingest", example: "\"https://gw.example\"") {
            if let problem = publicOriginProblem(origin) {
                reader.report("ingest.public_origin", problem)
            } else {
                ingest.publicOrigin = origin
            }
        }
        if let proxies = reader.strings(table, "trusted_proxies", at: "ingest", example: "[\"127.0.0.1\"]") {
            for proxy in proxies where !isIPAddress(proxy) {
                reader.report(
                    "ingest.trusted_proxies",
                    "\(proxy.escapedForDisplay()) is not an IP address: list the proxies' addresses as the gateway "
                        + "sees them, e.g. trusted_proxies = [\"127.0.0.1\"] (host names are not resolved)"
                )
            }
            ingest.trustedProxies = proxies.filter(isIPAddress)
        }
    }

    /// Whether `text` is an IPv4 or IPv6 address literal (never a name: nothing is resolved).
    static func isIPAddress(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }

    /// Why `public_origin` is not an origin (scheme, host, optional port; nothing after), or nil.
    static func publicOriginProblem(_ origin: String) -> String? {
        let lower = origin.lowercased()
        let scheme = ["https://", "http://"].first { lower.hasPrefix($0) }
        guard let scheme else {
            return "\(origin.escapedForDisplay()) does not start with https:// (or http://): write the origin "
                + "browsers use, e.g. public_origin = \"https://gw.example\""
        }
        let rest = lower.dropFirst(scheme.count)
        guard !rest.isEmpty, !rest.contains("/"), !rest.contains("@"), !rest.contains("?"), !rest.contains("#") else {
            return "\(origin.escapedForDisplay()) is not an origin: scheme, host and optional port only, no path, "
                + "user or query, e.g. public_origin = \"https://gw.example:8443\""
        }
        return nil
    }

    /// Why a non-loopback `listen` is refused, and the three ways out.
    static func exposureProblem(_ listen: ListenAddress) -> String {
        "\(listen) is not a loopback address and the ingest API would speak plain HTTP: set tls_certificate and "
            + "tls_key to serve HTTPS (docs/ingest.md, \"TLS\"), listen on 127.0.0.1 behind a TLS proxy, or set "
            + "insecure_expose = true"
    }

    private static func readAddress(
        _ table: TOMLTable,
        _ key: String,
        at path: String,
        _ reader: inout ConfigurationReader
    ) -> ListenAddress? {
        guard let text = reader.string(table, key, at: path, example: "\"127.0.0.1:9464\"") else { return nil }
        guard let address = ListenAddress(parsing: text) else {
            reader.report(
                "\(path).\(key)",
                "\(text.escapedForDisplay()) is not HOST:PORT: write \(key) = \"127.0.0.1:9464\" (port 0 to 65535)"
            )
            return nil
        }
        return address
    }
}
