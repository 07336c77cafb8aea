import Daemon
import Foundation
import Gateway
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The operator's keys: `[store] group`, `[control]`, `[[sim]]`, `[modem] radio`, `max_resets`,
/// `sim_poll_interval` and `sim_pins`; every mistake with its key and line, and a PIN never echoed.
@Suite("daemon configuration: the operator's keys")
struct DaemonOperatorConfigurationTests {
    @Test("every key is read and reaches the gateway's configuration")
    func read() throws {
        let configuration = try DaemonConfiguration.parse(
            toml: """
                [store]
                group = "operators"
                [control]
                socket = "/run/gw/control.sock"
                [modem]
                radio = "off"
                max_resets = 5
                sim_poll_interval = 3
                [[sim]]
                iccid = "89882280666027595366"
                pin = "2468"
                [[sim]]
                imei = "866971030221959"
                pin = "13579"
                """,
            file: "t.toml"
        )
        #expect(configuration.store.group == "operators")
        #expect(configuration.control == .init(enabled: true, socket: "/run/gw/control.sock"))
        #expect(configuration.sims.map(\.description) == ["SIM ICCID 89882280666027595366", "SIM IMEI 866971030221959"])
        let gateway = configuration.modem.gatewayConfiguration
        #expect(gateway.keepsRadioOff && gateway.maxResets == 5 && gateway.simPollInterval == .seconds(3))
        let book = try configuration.simPINBook()
        #expect(book.entry(iccid: "89882280666027595366", imei: "1")?.pin == "2468")
        #expect(book.entry(iccid: nil, imei: "866971030221959")?.pin == "13579")
        let rendered = configuration.renderedTOML()
        #expect(!rendered.contains("2468") && !rendered.contains("13579"), "PINs are never shown")
        #expect(try DaemonConfiguration.parse(toml: rendered, file: "r.toml").control == configuration.control)
    }

    @Test("mistakes name the key and the line; a bad PIN is never echoed")
    func mistakes() {
        do {
            _ = try DaemonConfiguration.parse(
                toml: """
                    [modem]
                    radio = "maybe"
                    max_resets = 0
                    [control]
                    socket = "relative.sock"
                    [[sim]]
                    pin = "1234"
                    [[sim]]
                    iccid = "89882280666027595366"
                    pin = "12x4"
                    """,
                file: "t.toml"
            )
            Issue.record("accepted")
        } catch {
            let text = error.description
            #expect(text.contains("line 2") && text.contains("modem.radio"), "\(text)")
            #expect(text.contains("modem.max_resets"), "\(text)")
            #expect(text.contains("control.socket") && text.contains("line 5"), "\(text)")
            #expect(text.contains("sim[0]") && text.contains("iccid"), "\(text)")
            #expect(text.contains("sim[1].pin") && text.contains("line 10"), "\(text)")
            #expect(!text.contains("12x4"), "the PIN is never echoed: \(text)")
        }
    }

    @Test("SIM PINs in a file others can read stop the start, naming chmod 600")
    func pinFilePermissions() throws {
        let directory = try TemporaryDirectory()
        let pins = directory.path("pins.toml")
        try "[[sim]]\niccid = \"89882280666027595366\"\npin = \"2468\"\n".write(toFile: pins, atomically: true, encoding: .utf8)
        chmod(pins, 0o640)
        let config = directory.path("nbgwd.toml")
        try "[modem]\nsim_pins = \"\(pins)\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        do {
            _ = try DaemonConfiguration.load(explicitPath: config, environment: [:])
            Issue.record("accepted a group-readable PIN file")
        } catch {
            #expect(error.description.contains("chmod 600 \(pins)"), "\(error)")
            #expect(!error.description.contains("2468"))
        }
        chmod(pins, 0o600)
        let loaded = try DaemonConfiguration.load(explicitPath: config, environment: [:])
        #expect(try loaded.configuration.simPINBook().entries.count == 1)

        // Inline [[sim]] entries need an owner-only config file too.
        try "[[sim]]\nimei = \"866971030221959\"\npin = \"2468\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        chmod(config, 0o644)
        #expect(throws: DaemonConfigurationError.self) { try DaemonConfiguration.load(explicitPath: config, environment: [:]) }
    }
}
