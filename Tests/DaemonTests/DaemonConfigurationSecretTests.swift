import Foundation
import NBGWCore
import Testing

@testable import Daemon

/// A configuration error goes to the terminal and, under systemd, to the journal: it never carries
/// a secret's value, nor the password of a URL (security review F9).
@Suite("daemon configuration: errors never echo a secret")
struct DaemonConfigurationSecretTests {
    func problems(_ text: String) -> DaemonConfigurationError? {
        do {
            _ = try DaemonConfiguration.parse(toml: text, file: "/etc/nbgw/nbgwd.toml")
            return nil
        } catch {
            return error
        }
    }

    @Test("a PIN written as a number is named by its type and how to write it, never by its value")
    func pinOfTheWrongType() throws {
        for (value, type) in [("1234", "an integer"), ("1234.5", "a number"), ("[1234]", "an array")] {
            let error = try #require(problems("[[sim]]\niccid = \"89882280666027595366\"\npin = \(value)\n"))
            let problem = try #require(error.problems.first { $0.key == "sim[0].pin" }, "\(error)")
            #expect(problem.line == 3)
            #expect(problem.message == "expected a string, found \(type); write pin = \"…\"", "\(problem.message)")
            #expect(!"\(error)".contains("1234"), "\(error)")
        }
    }

    @Test("a SIM PIN file with a number for a PIN: the error names the file and the key, not the PIN")
    func pinFile() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("sim-pins.toml")
        try "[[sim]]\nimei = \"866971030221959\"\npin = 97531\n".write(toFile: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        #expect {
            try DaemonConfiguration.loadSIMPINs(file: file)
        } throws: { error in
            "\(error)".contains("sim[0].pin") && "\(error)".contains(file) && !"\(error)".contains("97531")
        }
    }

    @Test("the cloud's secret keys of the wrong type show their type only")
    func cloudSecrets() throws {
        let kii = try #require(
            problems("[cloud]\nmode = \"kii\"\nowner_token = { value = \"tok-9f8e7d\" }\napp_key = [\"k-4c3b2a\"]\n")
        )
        let text = "\(kii)"
        #expect(text.contains("cloud.owner_token") && text.contains("cloud.app_key"), "\(text)")
        #expect(!text.contains("tok-9f8e7d") && !text.contains("k-4c3b2a"), "\(text)")
    }

    @Test("which keys are secret: a word pin, puk, secret, password, token of the key's name, or app_key")
    func secretKeys() {
        for key in [
            "pin", "sim[0].pin", "puk", "secret", "cloud.secret", "owner_token", "cloud.owner_token", "app_key",
            "api_password", "client_secret", "PIN",
        ] {
            #expect(ConfigurationReader.isSecret(key), "\(key)")
        }
        // Paths and names whose words only contain a secret word's letters.
        for key in [
            "path", "url", "client_id", "listen", "cloud.mode", "owner", "app_id", "sim_pins", "modem.sim_pins",
            "tls_key", "ingest.tls_key", "shipping", "tokens_dir",
        ] {
            #expect(!ConfigurationReader.isSecret(key), "\(key)")
        }
    }

    @Test("a URL's user info is hidden, whatever it holds; a URL without is shown as it is")
    func urlUserInfo() {
        let cases = [
            ("https://user:PASSWORD-IN-URL@cloud.example", "https://***@cloud.example"),
            ("https://PASSWORD-IN-URL@cloud.example:8443/x?y=1", "https://***@cloud.example:8443/x?y=1"),
            ("https://u:pa/ss@word@cloud.example/", "https://***@cloud.example/"),
            ("kii+https://u:PW@api-jp.kii.com/app1", "kii+https://***@api-jp.kii.com/app1"),
            ("u:PW@cloud.example", "***@cloud.example"),
            ("https://cloud.example/d/", "https://cloud.example/d/"),
            ("local", "local"),
        ]
        for (url, shown) in cases {
            #expect(url.redactingURLUserInfo() == shown, "\(url)")
            #expect(url.urlForDisplay() == "\"\(shown)\"", "\(url)")
        }
    }

    @Test("a cloud URL with a password: every refusal of it hides the password")
    func cloudURLWithPassword() throws {
        let secret = "PASSWORD-IN-URL"
        let directory = try TemporaryDirectory()
        let file = directory.path("nbgwd.toml")
        // Without credentials: "no cloud credentials for …"; with them: the URL's form is refused.
        for extra in ["", "client_id = \"id\"\nsecret = \"s3cr3t-value\"\n"] {
            try "[cloud]\nmode = \"http\"\nurl = \"https://user:\(secret)@cloud.example\"\n\(extra)"
                .write(toFile: file, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
            #expect {
                try DaemonConfiguration.load(explicitPath: file, environment: [:])
            } throws: { error in
                "\(error)".contains("https://***@cloud.example") && !"\(error)".contains(secret)
                    && !"\(error)".contains("s3cr3t")
            }
        }
        // The same URLs from the environment and the command line, and of the Kii cloud.
        let urls = [
            "https://user:\(secret)@cloud.example", "kii+https://user:\(secret)@api-jp.kii.com/app1",
            "gopher://user:\(secret)@cloud.example",
        ]
        for url in urls {
            for (environment, overrides) in [
                (["NBGW_CLOUD_URL": url], DaemonOverrides()), ([:], DaemonOverrides(cloud: url)),
            ] {
                #expect {
                    try DaemonConfiguration.load(
                        explicitPath: nil,
                        defaultPath: directory.path("absent.toml"),
                        environment: environment,
                        overrides: overrides
                    )
                } throws: { error in
                    "\(error)".contains("***@") && !"\(error)".contains(secret)
                }
            }
        }
        // A url no cloud claims, in the file: "… names no remote cloud".
        let unclaimed = try #require(problems("[cloud]\nurl = \"htps://user:\(secret)@cloud.example\"\n"))
        #expect("\(unclaimed)".contains("names no remote cloud") && !"\(unclaimed)".contains(secret))
    }

    @Test("nbgwd --check-config on a file with pin = 1234 and a URL password: exit 78, neither on stderr")
    func checkConfigThroughTheBinary() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("nbgwd.toml")
        try """
        [[sim]]
        iccid = "89882280666027595366"
        pin = 1234

        [cloud]
        url = "https://operator:PASSWORD-IN-URL@cloud.example"
        """.write(toFile: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        let result = try await DaemonExitCodeTests.run(["--config", file, "--check-config"])
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stderr.contains("line 3: sim[0].pin: expected a string, found an integer"), "\(result.stderr)")
        #expect(!result.stderr.contains("1234") && !result.stdout.contains("1234"), "\(result.stderr)")
        // The pin error stops the file before the cloud is checked; without it, the URL is refused.
        try """
        [cloud]
        url = "https://operator:PASSWORD-IN-URL@cloud.example"
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let url = try await DaemonExitCodeTests.run(["--config", file, "--check-config"])
        #expect(url.status == 78, "\(url.stderr)")
        #expect(url.stderr.contains("https://***@cloud.example"), "\(url.stderr)")
        #expect(!url.stderr.contains("PASSWORD-IN-URL"), "\(url.stderr)")
    }
}
