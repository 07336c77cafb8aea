import Daemon
import Foundation
import Testing

/// What fuzz-toml found in the configuration reader (docs/fuzzing.md), each input minimised and
/// kept in Fuzz/Corpus/fuzz-toml/crash-*: the file must be refused with its line, never crash the
/// daemon, and never echo a control character to the operator's terminal or journal.
@Suite("daemon configuration: fuzz findings")
struct DaemonConfigurationFuzzFindingsTests {
    /// toml++ (inside TOMLKit) *assumes* a table header starts with a key: `[` then one byte made
    /// `nbgwd --check-config` abort (assertion; undefined behaviour with assertions off).
    @Test(
        "A table header that does not start with a key is a syntax error on its line, not a crash",
        arguments: ["[\u{FFFD}", "[é]", "[=]", "[ !]", "[[!]]", "[[ [a]]", "[\n", "a = 1\n\n  [.x]\n"]
    )
    func headerWithoutKey(_ text: String) {
        #expect {
            try DaemonConfiguration.parse(toml: text, file: "bad.toml")
        } throws: { error in
            guard let error = error as? DaemonConfigurationError, let problem = error.problems.first else {
                return false
            }
            return problem.line
                == text.split(separator: "\n", omittingEmptySubsequences: false)
                .firstIndex { $0.trimmingCharacters(in: .whitespaces).hasPrefix("[") }.map { $0 + 1 }
                && problem.message.contains("TOML syntax error")
        }
    }

    /// toml++ also assumes an array element does not start with `}`: `x = [1,}` aborted the same way.
    @Test(
        "An array element that starts with } is a syntax error on its line, not a crash",
        arguments: [("x = [1,}\n", 1), ("x = [}\n", 1), ("[modem]\nrat = [\n  \"nb-iot\", # c\n  }\n", 4)]
    )
    func arrayElementBrace(_ text: String, line: Int) {
        #expect {
            try DaemonConfiguration.parse(toml: text, file: "bad.toml")
        } throws: { error in
            guard let problem = (error as? DaemonConfigurationError)?.problems.first else { return false }
            return problem.line == line && problem.message.contains("TOML syntax error")
        }
    }

    /// And a date-time whose time does not start with a digit (`1979-05-27T` then ESC).
    @Test("A malformed date-time is a syntax error, not a crash")
    func dateTime() {
        #expect {
            try DaemonConfiguration.parse(toml: "x = 1979-05-27T\u{1B}7:32:00Z\n", file: "bad.toml")
        } throws: { error in
            String(describing: error).contains("TOML syntax error")
        }
    }

    /// The syntax check must never refuse valid TOML: every construct of the 1.0 grammar, which
    /// only the reader's own rules (unknown keys) may then refuse.
    @Test("Every construct of TOML 1.0 passes the syntax check", arguments: ["\n", "\r\n"])
    func validTOML(newline: String) {
        let document = #"""
            # comment
            title = "TOML \"Example\" \u00E9 \U0001F600"
            'literal key' = 'C:\path'
            "quoted".dotted . bare-key_1 = 1
            ints = [ +99, 42, 0, -17, 1_000, 0xDEAD_beef, 0o755, 0b1101 ]
            floats = [ 1.0, -3.1415, 5e+22, 1e06, -2E-2, 6.626e-34, 224_617.445_991, inf, -inf, +nan ]
            bools = [true, false]
            dates = [ 1979-05-27T07:32:00Z, 1979-05-27T00:32:00.999999-07:00, 1979-05-27 07:32:00,
                      1979-05-27t07:32:00, 1979-05-27, 07:32:00, 00:32:00.5 ]
            multi = """
            Roses are red \
               Violets are blue ""quoted"" """
            raw = '''
            I [dw]on't need \d{2} apples'''''
            nested = [ [ 1, 2 ], ["a", 'b'], [ { x = 1 } ], ] # trailing comma
            inline = { a = 1, b.c = "two", d = [ 3,
              4 ] }
            empty = {}

            [table . "sub"]
            [[array]]
            [[ array ]] # another
            key = """"four quotes"""""
            """#
        #expect {
            try DaemonConfiguration.parse(
                toml: document.replacingOccurrences(of: "\n", with: newline),
                file: "all.toml"
            )
        } throws: { error in
            !String(describing: error).contains("TOML syntax error")
        }
    }

    /// "\r\n" is one Character in Swift: the key locator split lines on the Character "\n", so in
    /// a CR LF file every problem was "on line 1".
    @Test("Problems in a CR LF file name the right line")
    func crlfLines() {
        let text = "[modem]\r\napn = \"x\"\r\nregistration_timeout = -5\r\n"
        #expect {
            try DaemonConfiguration.parse(toml: text, file: "crlf.toml")
        } throws: { error in
            (error as? DaemonConfigurationError)?.problems.first?.line == 3
        }
    }

    @Test("Brackets that are values, strings or comments are not taken for headers")
    func notHeaders() throws {
        let valid = """
            [store]
            # [=] in a comment
            path = "/var/lib/[=]/nbgw.sqlite"
            [modem]
            bands = { nb-iot = [
              3, 8,
            ] }
            """
        let configuration = try DaemonConfiguration.parse(toml: valid, file: "ok.toml")
        #expect(configuration.store.path == "/var/lib/[=]/nbgw.sqlite")
        #expect(configuration.modem.bands["nb-iot"] == [3, 8])
        // A nested array at the start of a line inside a multi-line array is a value, so toml++
        // reads it (and the reader refuses the key for its own reason, not as a header).
        let nested = "[modem]\nrat = [\n[+1],\n]\n"
        #expect {
            try DaemonConfiguration.parse(toml: nested, file: "nested.toml")
        } throws: { error in
            !String(describing: error).contains("TOML syntax error")
        }
    }

    /// toml++ quotes the offending text in its messages: a tab (and so an ESC) reached the message.
    @Test(
        "A syntax error's message carries no control character",
        arguments: ["x = tr\tue\n", "[modem]\napn =-i\u{1}\n", "\"a\\tb\" = 1\n\"a\\tb\" = 2\n"]
    )
    func escapedSyntaxError(_ text: String) {
        #expect {
            try DaemonConfiguration.parse(toml: text, file: "bad.toml")
        } throws: { error in
            let message = String(describing: error)
            return !message.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || $0.value == 0x7F }
        }
    }

    /// `[cloud] url` without `mode`, naming no remote cloud: nbgwd ran the local cloud and ignored
    /// the url, and `--check-config` rendered `mode = "local"` with the url, which nbgwd refuses.
    @Test(
        "A cloud url without a mode that names no remote cloud is refused on its line",
        arguments: [
            "[cloud]\nurl=\"\"", "[cloud]\nurl = \"htps://openapi.tuyaeu.com\"\n", "[cloud]\nurl = \"local\"\n",
        ]
    )
    func cloudURLWithoutMode(_ text: String) {
        #expect {
            try DaemonConfiguration.parse(toml: text, file: "cloud.toml")
        } throws: { error in
            guard let problem = (error as? DaemonConfigurationError)?.problems.first else { return false }
            return problem.key == "cloud.url" && problem.line == 2 && problem.message.contains("names no remote cloud")
        }
    }
}
