import Console
import Daemon
import Foundation
import Testing

/// `[console]`: the web console's batch limits (docs/console.md, "Batches"), read, checked with
/// their key and line, rendered, and handed to the console.
@Suite("daemon configuration: [console]")
struct DaemonConsoleConfigurationTests {
    @Test("every [console] key is read, rendered, and set on the console's configuration")
    func read() throws {
        let configuration = try DaemonConfiguration.parse(
            toml: """
                [console]
                batch_max_upload = 1048576
                batch_concurrency = 2
                batch_retention = 86400
                batch_quota = 8388608
                """,
            file: "t.toml"
        )
        #expect(
            configuration.console
                == .init(
                    batchMaxUpload: 1_048_576,
                    batchConcurrency: 2,
                    batchRetention: .seconds(86_400),
                    batchQuota: 8_388_608
                )
        )
        var console = ConsoleConfiguration(secureCookies: false, batchDirectory: "/tmp/x")
        configuration.console.apply(to: &console)
        #expect(console.maxCSVBytes == 1_048_576 && console.maxRunningBatches == 2)
        #expect(console.batchRetention == .seconds(86_400) && console.batchQuotaBytes == 8_388_608)
        let rendered = configuration.renderedTOML()
        #expect(rendered.contains("[console]\nbatch_max_upload = 1048576\n"), "\(rendered)")
        #expect(try DaemonConfiguration.parse(toml: rendered, file: "r.toml").console == configuration.console)
    }

    @Test("the defaults are the console's own: 64 MiB, one batch, 7 days, 1 GiB")
    func defaults() {
        let settings = DaemonConfiguration().console
        let console = ConsoleConfiguration(secureCookies: false, batchDirectory: "/tmp/x")
        #expect(settings.batchMaxUpload == console.maxCSVBytes && settings.batchMaxUpload == 64 * 1_048_576)
        #expect(settings.batchConcurrency == console.maxRunningBatches && settings.batchConcurrency == 1)
        #expect(settings.batchRetention == console.batchRetention && settings.batchRetention == .seconds(604_800))
        #expect(settings.batchQuota == console.batchQuotaBytes && settings.batchQuota == 1 << 30)
    }

    @Test("mistakes name the key and the line; a quota smaller than an upload with its report is refused")
    func mistakes() {
        do {
            _ = try DaemonConfiguration.parse(
                toml: """
                    [console]
                    batch_concurrency = 0
                    batch_retention = 60
                    batch_max_upload = "64M"
                    batch_quota = 2097152
                    batch_dir = "/tmp"
                    """,
                file: "t.toml"
            )
            Issue.record("accepted")
        } catch {
            let text = error.description
            #expect(text.contains("line 2") && text.contains("console.batch_concurrency"), "\(text)")
            #expect(text.contains("line 3") && text.contains("console.batch_retention"), "\(text)")
            #expect(text.contains("line 4") && text.contains("console.batch_max_upload"), "\(text)")
            #expect(text.contains("console.batch_quota") && text.contains("4 × batch_max_upload"), "\(text)")
            #expect(text.contains("batch_dir"), "\(text)")
        }
    }
}
