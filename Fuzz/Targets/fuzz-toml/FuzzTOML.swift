import FuzzSupport

@testable import Daemon

/// nbgwd's configuration reader (TOMLKit, then the typed reading and the line locator) on any
/// text an operator, a package or a broken editor can leave in /etc/nbgw/nbgwd.toml.
///
/// Properties:
/// 1. No crash, no trap: every input is a configuration or a ``DaemonConfigurationError``.
/// 2. A refusal lists at least one problem; every line it names is in the file; no message
///    carries a control character (values are echoed escaped).
/// 3. What the reader accepts, rendered (`nbgwd --check-config`), reads back to the same
///    configuration, the secrets aside (the rendering leaves the cloud's secret keys and the
///    `[[sim]]` PINs out on purpose, and says that they are set).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzTOML.run(String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self))
    return 0
}

enum FuzzTOML {
    static func run(_ text: String) {
        let configuration: DaemonConfiguration
        do {
            configuration = try DaemonConfiguration.parse(toml: text, file: "fuzz.toml")
        } catch {
            check(error, lines: text.unicodeScalars.filter { $0 == "\n" }.count + 1)
            return
        }
        let rendered = configuration.renderedTOML()
        var expected = configuration
        for key in DaemonConfiguration.Cloud.secretKeys { expected.cloud.settings[key] = nil }
        expected.sims = []
        do {
            let again = try DaemonConfiguration.parse(toml: rendered, file: "rendered.toml")
            fuzzCheck(
                again == expected,
                "the rendering reads back differently:\n\(rendered)\n\(again)\nvs\n\(expected)"
            )
        } catch {
            fuzzFail(
                "the rendering of an accepted file is refused: \(error)\n\(rendered)\nfrom\n\(text.debugDescription)"
            )
        }
    }

    static func check(_ error: DaemonConfigurationError, lines: Int) {
        fuzzCheck(!error.problems.isEmpty, "a refusal without a problem")
        for problem in error.problems {
            if let line = problem.line {
                fuzzCheck(
                    (1...max(1, lines)).contains(line),
                    "problem on line \(line) of a \(lines)-line file: \(problem)"
                )
            }
            fuzzCheck(
                !problem.message.unicodeScalars.contains {
                    $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value)
                },
                "message carries a control character: \(problem.message.debugDescription)"
            )
        }
    }
}
