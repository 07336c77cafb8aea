import Control

extension DaemonConfiguration {
    /// Where the effective configuration came from, for `--check-config` and the start-up log
    /// (declared here, with the rendering that prints it, so the reader builds without the loader).
    public struct Sources: Sendable, Equatable {
        /// The config file read, or nil when running on the built-in defaults.
        public var file: String?
        /// Environment variables that overrode a setting.
        public var environment: [String]
        /// True when flags overrode a setting.
        public var flags: Bool
    }

    /// The effective configuration as a TOML document (what `nbgwd --check-config` prints): every
    /// key with its value, secrets left out. Feeding it back to ``parse(toml:file:)`` gives the
    /// same configuration (without the secret).
    public func renderedTOML(sources: Sources? = nil) -> String {
        var lines: [String] = []
        if let sources {
            lines.append("# nbgwd effective configuration")
            lines.append("# file: \(sources.file ?? "none (built-in defaults)")")
            if !sources.environment.isEmpty {
                lines.append("# overridden by the environment: \(sources.environment.joined(separator: ", "))")
            }
            if sources.flags { lines.append("# overridden by command-line flags") }
            lines.append("")
        }
        lines.append("[store]")
        if let path = store.path { lines.append("path = \(quoted(path))") }
        if let group = store.group {
            lines.append("group = \(quoted(group))")
        } else {
            lines.append("# group: \(Store.defaultGroup) when that group exists (the default)")
        }
        if let key = store.secretsKey {
            lines.append("secrets_key = \(quoted(key))")
        } else {
            lines.append(
                "# secrets_key: $CREDENTIALS_DIRECTORY/\(SecretsKeySource.credentialName), else "
                    + "\(SecretsKeySource.packagedPath) (the default)"
            )
        }
        lines.append("")
        lines.append("[control]")
        lines.append("enabled = \(control.enabled)")
        if let socket = control.socket {
            lines.append("socket = \(quoted(socket))")
        } else {
            lines.append("# socket: \(ControlProtocol.defaultSocketPath) (the default)")
        }
        lines.append("")
        if !sims.isEmpty {
            lines.append(
                "# \(sims.count) [[sim]] PIN\(sims.count == 1 ? "" : "s") set (not shown): \(sims.map(\.description).joined(separator: ", "))"
            )
            lines.append("")
        }
        lines.append("[cloud]")
        lines.append("mode = \(quoted(cloud.mode))")
        if let url = cloud.url { lines.append("url = \(quoted(url))") }
        lines.append("sync_wait = \(seconds(cloud.syncWait))")
        for key in Cloud.settingsKeys {
            guard let value = cloud.settings[key] else { continue }
            if Cloud.secretKeys.contains(key) {
                lines.append("# \(key) is set (not shown)")
            } else {
                lines.append("\(key) = \(quoted(value))")
            }
        }
        lines.append("")
        lines.append("[modem]")
        if let apn = modem.apn { lines.append("apn = \(quoted(apn))") }
        if let technologies = modem.technologies {
            lines.append("rat = [\(technologies.map(quoted).joined(separator: ", "))]")
        }
        lines.append("registration_timeout = \(seconds(modem.registrationTimeout))")
        lines.append("signal_poll_interval = \(seconds(modem.signalPollInterval))")
        if let product = modem.productID { lines.append("product = \(quoted(product))") }
        lines.append("radio = \(quoted(modem.keepsRadioOff ? "off" : "on"))")
        lines.append("max_resets = \(modem.maxResets)")
        lines.append("sim_poll_interval = \(seconds(modem.simPollInterval))")
        if let file = modem.simPINsFile { lines.append("sim_pins = \(quoted(file))") }
        if !modem.bands.isEmpty {
            lines.append("")
            lines.append("[modem.bands]")
            for (technology, bands) in modem.bands.sorted(by: { $0.key < $1.key }) {
                lines.append("\(technology) = [\(bands.map(String.init).joined(separator: ", "))]")
            }
        }
        switch modem.powerSaving {
        case .unchanged:
            break
        case .off:
            lines.append("")
            lines.append("[modem.psm]")
            lines.append("enabled = false")
        case .on(let tau, let active):
            lines.append("")
            lines.append("[modem.psm]")
            lines.append("enabled = true")
            lines.append("tau = \(tau)")
            lines.append("active = \(active)")
        }
        if !modem.edrx.isEmpty {
            lines.append("")
            lines.append("[modem.edrx]")
            for (technology, cycle) in modem.edrx.sorted(by: { $0.key < $1.key }) {
                lines.append("\(technology) = \(cycle.formatted)")
            }
        }
        lines.append("")
        lines.append("[modem.backoff]")
        lines.append("initial = \(seconds(modem.backoffInitial))")
        lines.append("cap = \(seconds(modem.backoffCap))")
        lines.append("")
        lines += discovery.renderedTOML(quoted: quoted)
        for port in ports {
            lines.append("")
            lines.append("[[ports]]")
            lines.append("path = \(quoted(port.path))")
            if let baud = port.baud { lines.append("baud = \(baud)") }
        }
        lines.append("")
        lines.append("[metrics]")
        lines.append("enabled = \(metrics.enabled)")
        lines.append("listen = \(quoted(metrics.listen.description))")
        if metrics.allowRemote { lines.append("allow_remote = true") }
        lines.append("")
        lines.append("[ingest]")
        lines.append("enabled = \(ingest.enabled)")
        lines.append("listen = \(quoted(ingest.listen.description))")
        lines.append("rate_limit = \(ingest.rateLimit.formatted)")
        if let burst = ingest.burst { lines.append("burst = \(burst)") }
        lines.append("max_body = \(ingest.maxBodyBytes)")
        lines.append("bind_timeout = \(seconds(ingest.bindTimeout))")
        lines.append("insecure_expose = \(ingest.insecureExpose)")
        if let certificate = ingest.tlsCertificate { lines.append("tls_certificate = \(quoted(certificate))") }
        if let key = ingest.tlsKey { lines.append("tls_key = \(quoted(key))") }
        lines.append("max_connections = \(ingest.maxConnections)")
        lines.append("max_connections_per_client = \(ingest.maxConnectionsPerClient)")
        lines.append("idle_timeout = \(seconds(ingest.idleTimeout))")
        if let origin = ingest.publicOrigin { lines.append("public_origin = \(quoted(origin))") }
        if !ingest.trustedProxies.isEmpty {
            lines.append("trusted_proxies = [\(ingest.trustedProxies.map(quoted).joined(separator: ", "))]")
        }
        lines.append("")
        lines.append("[shutdown]")
        lines.append("grace_period = \(seconds(shutdown.gracePeriod))")
        lines.append("")
        lines.append("[log]")
        lines.append("level = \(quoted(log.level.rawValue))")
        lines.append("")
        lines += renderedHooks(seconds: seconds, quoted: quoted)
        lines.append("")
        lines += renderedLabels(quoted: quoted)
        lines.append("")
        lines += renderedConsole(seconds: seconds)
        return lines.joined(separator: "\n") + "\n"
    }

    private func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case " "..."~": out.unicodeScalars.append(scalar)
            default:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\U" + String(repeating: "0", count: max(0, 8 - hex.count)) + hex
            }
        }
        return out + "\""
    }

    private func seconds(_ duration: Duration) -> String {
        let (whole, attoseconds) = duration.components
        return (Double(whole) + Double(attoseconds) / 1e18).formatted
    }
}
