import Testing

@testable import ATKit

/// ``ATCommandLine``: a command line read the way V.250 §5 says a module reads it.
@Suite struct ATCommandLineTests {
    /// Each command as `kind name form arguments`: `+CFUN set 4,0`, `E action 1`, `+CGDCONT set 1,"IP",""`.
    private func summary(_ line: String) throws -> [String] {
        try ATCommandLine(line).commands.map { command in
            let kind =
                switch command.kind {
                case .basic: "basic"
                case .sParameter: "s"
                case .extended: "ext"
                }
            let arguments = command.arguments.map { $0.isString ? "\"\($0.value)\"" : $0.value }
            return
                ([kind, command.name, "\(command.form)"]
                + (arguments.isEmpty ? [] : [arguments.joined(separator: ",")]))
                .joined(separator: " ")
        }
    }

    private func error(_ line: String) -> ATCommandLineError? {
        do {
            _ = try ATCommandLine(line)
            return nil
        } catch {
            return error
        }
    }

    @Test(
        "each command form: basic, ampersand, S parameter, dial, extended and vendor extended",
        arguments: [
            ("AT", []), ("ATE0", ["basic E action 0"]), ("ATE", ["basic E action"]), ("ATI", ["basic I action"]),
            ("ATZ", ["basic Z action"]), ("AT&F0", ["basic &F action 0"]), ("ATE?", ["basic E read"]),
            ("ATS3=13", ["s S3 set 13"]), ("ATS3?", ["s S3 read"]), ("ATS3=?", ["s S3 test"]),
            ("ATS3", ["s S3 action"]), ("ATS03=10", ["s S3 set 10"]), ("ATS3=", ["s S3 set"]),
            ("ATD*99#", ["basic D action *99#"]), ("AT+CGMI", ["ext +CGMI action"]),
            ("AT+CFUN=1,1", ["ext +CFUN set 1,1"]), ("AT+CFUN?", ["ext +CFUN read"]), ("AT+CFUN=?", ["ext +CFUN test"]),
            ("AT+CFUN=", ["ext +CFUN set"]), ("AT%XSYSTEMMODE=1,0,0,0", ["ext %XSYSTEMMODE set 1,0,0,0"]),
            ("AT^SYSCFG?", ["ext ^SYSCFG read"]), ("AT$QCPWRDN", ["ext $QCPWRDN action"]),
            ("AT#SGACT=1,1", ["ext #SGACT set 1,1"]),
            ("AT+QCFG=\"nwscanmode\",3,1", ["ext +QCFG set \"nwscanmode\",3,1"]),
            ("AT+NCONFIG=AUTOCONNECT,TRUE", ["ext +NCONFIG set AUTOCONNECT,TRUE"]),
            ("AT+CGDCONT=1,,\"x\"", ["ext +CGDCONT set 1,,\"x\""]),
            ("AT+CPSMS=1,,,\"00100001\"", ["ext +CPSMS set 1,,,\"00100001\""]),
        ] as [(String, [String])]
    )
    func forms(line: String, expected: [String]) throws {
        #expect(try summary(line) == expected, "\(line)")
    }

    @Test(
        "basic commands run together, extended ones are joined by ;, a basic one may run into an extended one",
        arguments: [
            ("ATE1V0Q0", ["basic E action 1", "basic V action 0", "basic Q action 0"]),
            ("ATQ1E0", ["basic Q action 1", "basic E action 0"]), ("ATZE1", ["basic Z action", "basic E action 1"]),
            ("AT+CSQ;+CFUN=0", ["ext +CSQ action", "ext +CFUN set 0"]),
            ("ATE0+CMEE=1", ["basic E action 0", "ext +CMEE set 1"]),
            ("ATE0;V1", ["basic E action 0", "basic V action 1"]),
            ("AT+CSQ;", ["ext +CSQ action"]), ("ATS3=13E0", ["s S3 set 13", "basic E action 0"]),
            ("ATD*99#;+CSQ", ["basic D action *99#", "ext +CSQ action"]),
            ("AT&F0E0", ["basic &F action 0", "basic E action 0"]),
            ("AT+CSQ;+CPIN=\"1234\";E1", ["ext +CSQ action", "ext +CPIN set \"1234\"", "basic E action 1"]),
        ] as [(String, [String])]
    )
    func concatenation(line: String, expected: [String]) throws {
        #expect(try summary(line) == expected, "\(line)")
    }

    @Test(
        "spaces outside quotes are ignored, in names and numbers too; lower case reads as upper case",
        arguments: [
            ("AT + CFUN = 4 , 0", ["ext +CFUN set 4,0"]), ("at+cfun = 4", ["ext +CFUN set 4"]),
            ("  AT+CSQ  ", ["ext +CSQ action"]), ("AT+C FUN=0", ["ext +CFUN set 0"]), ("ATE 1", ["basic E action 1"]),
            ("AT+CFUN=1 5", ["ext +CFUN set 15"]),
            ("AT+CSQ ; +CPIN = \"1234\"", ["ext +CSQ action", "ext +CPIN set \"1234\""]),
            ("AT+CGDCONT=1, \"IP\" , \"a b\"", ["ext +CGDCONT set 1,\"IP\",\"a b\""]), ("ATS 3 = 10", ["s S3 set 10"]),
            ("AT+CEREG ?", ["ext +CEREG read"]), ("AT+CEREG = ?", ["ext +CEREG test"]),
            ("at+cgmi", ["ext +CGMI action"]),
            ("ate0v1", ["basic E action 0", "basic V action 1"]), ("at&f", ["basic &F action"]),
            ("ats3?", ["s S3 read"]),
            ("aT+qcfg=\"Band\"", ["ext +QCFG set \"Band\""]),
        ] as [(String, [String])]
    )
    func spacesAndCase(line: String, expected: [String]) throws {
        #expect(try summary(line) == expected, "\(line)")
    }

    @Test(
        "quotes keep ; , = ? and spaces inside one argument",
        arguments: [
            ("AT+CGDCONT=1,\"IP\",\"a;+CFUN=0\"", ["ext +CGDCONT set 1,\"IP\",\"a;+CFUN=0\""]),
            ("AT+X=\"a,b\",\"c=d?\"", ["ext +X set \"a,b\",\"c=d?\""]), ("AT+X=\"\"", ["ext +X set \"\""]),
            ("AT+X=\"é ü\"", ["ext +X set \"é ü\""]),
            ("ATD\"a;b\";E0", ["basic D action \"a;b\"", "basic E action 0"]),
        ] as [(String, [String])]
    )
    func quotes(line: String, expected: [String]) throws {
        #expect(try summary(line) == expected, "\(line)")
    }

    @Test("each command's source, argument text and argument ranges are the exact text of the line")
    func ranges() throws {
        let line = try ATCommandLine("AT+CSQ ; +CPIN = \"1234\" ;E1V0")
        #expect(line.commands.map(\.source) == ["+CSQ", "+CPIN = \"1234\"", "E1", "V0"])
        #expect(line.commands.map(\.argumentText) == ["", " \"1234\"", "1", "0"])
        for command in line.commands {
            #expect(String(line.text.unicodeScalars[command.range]) == command.source)
            #expect(String(line.text.unicodeScalars[command.argumentRange]) == command.argumentText)
        }
        let clck = try ATCommandLine("AT+CLCK = \"SC\",1, \"1234\"").commands[0]
        #expect(clck.arguments.map(\.value) == ["SC", "1", "1234"])
        let text = "AT+CLCK = \"SC\",1, \"1234\""
        #expect(clck.arguments.map { String(text.unicodeScalars[$0.range]) } == [" \"SC\"", "1", " \"1234\""])
        #expect(clck.arguments.map(\.integer) == [nil, 1, nil])
        let unicode = try ATCommandLine("AT+X=\"é\";+CSQ")
        #expect(unicode.commands.map(\.source) == ["+X=\"é\"", "+CSQ"])
        #expect(Array(String(unicode.text.unicodeScalars[unicode.commands[1].range]).utf8) == Array("+CSQ".utf8))
    }

    @Test(
        "what V.250 and the reader cannot agree on is an error with its column, never a trap",
        arguments: [
            ("", ATCommandLineError.Problem.missingPrefix, 1), ("+CSQ", .missingPrefix, 1),
            ("A T+CSQ", .missingPrefix, 2),
            ("AT+CPIN=\"1234", .unterminatedString, 9), ("ATD\"123", .unterminatedString, 4),
            ("AT+CSQ+CFUN=0", .missingSemicolon, 7), ("AT+CSQ?x", .textAfterQuery, 8),
            ("AT+CFUN=?0", .textAfterQuery, 10),
            ("AT+=1", .missingName, 4), ("AT+1", .missingName, 4), ("AT&1", .missingLetter, 4),
            ("ATS=3", .missingParameterNumber, 4), ("AT+X=\"a\"b", .textAfterString, 9),
            ("AT+X=a\"b\"", .quoteInValue, 7),
            ("AT+CFUN=0?", .unexpected("?"), 10), ("ATE1?", .unexpected("?"), 5), ("AT=1", .unexpected("="), 3),
            ("AT1", .unexpected("1"), 3), ("AT+CSQ\r", .controlCharacter, 7), ("AT+X=\"\t\"", .controlCharacter, 7),
            ("AT+CSQ;é", .nonASCII, 8), ("AT+X=\"a\"\u{301}", .textAfterString, 9), ("AT+CSQ\"", .unexpected("\""), 7),
        ] as [(String, ATCommandLineError.Problem, Int)]
    )
    func errors(line: String, problem: ATCommandLineError.Problem, column: Int) {
        #expect(error(line) == ATCommandLineError(problem, column: column), "\(line.debugDescription)")
    }

    @Test("an error's description names the column and never quotes a letter or digit of the line")
    func errorDescriptions() {
        #expect(error("AT+CPIN=\"1234")?.description == "column 9: a quoted string that is not closed")
        #expect(error("AT1234")?.description == "column 3: a letter or digit where no command starts or continues")
        #expect(error("AT=1")?.description == "column 3: `=` where no command starts or continues")
    }

    @Test("every prefix of tricky lines reads or fails cleanly")
    func prefixes() {
        let lines = [
            "AT+CGDCONT=1,\"IP\",\"a;+CFUN=0\";E1V0&F0S3=13;+CPIN = \"1234\",\"5678\"", "ATD\"x;y\";S3?;S4=?;+CFUN=?",
            "at + c fun = 1 , 1 ; +COPS=?;%XSYSTEMMODE=1,0,0,0",
        ]
        for line in lines {
            var prefix = ""
            for character in line {
                prefix.append(character)
                if let parsed = try? ATCommandLine(prefix) {
                    for command in parsed.commands {
                        #expect(parsed.text.unicodeScalars[command.range].count == command.source.unicodeScalars.count)
                        #expect(command.argumentRange.lowerBound >= command.range.lowerBound)
                        #expect(command.argumentRange.upperBound <= command.range.upperBound)
                    }
                }
            }
        }
    }
}
