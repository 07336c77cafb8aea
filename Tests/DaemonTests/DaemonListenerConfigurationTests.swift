import Daemon
import Foundation
import Ingest
import Testing

/// `[ingest]`'s listener limits and proxy settings (issue 30): read, checked, rendered, and what
/// reaches the listener.
@Suite("daemon configuration: the listener under hostile load")
struct DaemonListenerConfigurationTests {
    @Test("the limits and the proxy settings are read, rendered back and handed to the listener")
    func readAndRendered() throws {
        let text = """
            [ingest]
            enabled = true
            max_connections = 200
            max_connections_per_client = 10
            idle_timeout = 15
            public_origin = "https://gw.example:8443"
            trusted_proxies = ["127.0.0.1", "::1"]
            """
        let configuration = try DaemonConfiguration.parse(toml: text, file: "limits.toml")
        #expect(configuration.ingest.maxConnections == 200)
        #expect(configuration.ingest.maxConnectionsPerClient == 10)
        #expect(configuration.ingest.idleTimeout == .seconds(15))
        #expect(configuration.ingest.publicOrigin == "https://gw.example:8443")
        #expect(configuration.ingest.trustedProxies == ["127.0.0.1", "::1"])
        let listener = configuration.ingest.ingestConfiguration
        #expect(listener.connectionLimits.maxConnections == 200)
        #expect(listener.connectionLimits.maxConnectionsPerClient == 10)
        #expect(listener.connectionLimits.idleTimeout == .seconds(15))
        #expect(listener.publicOrigin == "https://gw.example:8443")
        #expect(listener.trustedProxies == ["127.0.0.1", "::1"])
        let rendered = configuration.renderedTOML()
        #expect(try DaemonConfiguration.parse(toml: rendered, file: "rendered.toml") == configuration)
    }

    @Test("a public origin with a path, a user or no scheme is refused, naming the key and the fix")
    func badOrigins() throws {
        for origin in ["gw.example", "https://gw.example/console", "https://user@gw.example", "ftp://gw"] {
            do {
                _ = try DaemonConfiguration.parse(toml: "[ingest]\npublic_origin = \"\(origin)\"", file: "o.toml")
                Issue.record("\(origin) was accepted")
            } catch {
                #expect(error.description.contains("ingest.public_origin"), "\(error)")
                #expect(error.description.contains("https://gw.example"), "the fix is named: \(error)")
            }
        }
    }

    @Test("a trusted proxy must be an IP address: names are not resolved")
    func proxiesAreAddresses() throws {
        do {
            _ = try DaemonConfiguration.parse(toml: "[ingest]\ntrusted_proxies = [\"proxy.lan\"]", file: "p.toml")
            Issue.record("a host name was accepted")
        } catch {
            #expect(error.description.contains("ingest.trusted_proxies"))
            #expect(error.description.contains("proxy.lan"))
        }
    }
}
