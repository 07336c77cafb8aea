import ArgumentParser
import Foundation
import NBGWCore

/// Rendering shared by the commands: JSON on stdout, human text on stdout, errors on stderr.
enum Output {
    static func json<T: Encodable>(_ value: T) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Output.timestamp(date))
        }
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// `12:03:04.512`: the time of day of an event, for lines that follow each other.
    static func time(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: .current).time(includingFractionalSeconds: true))
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    struct ErrorBody: Encodable {
        struct Detail: Encodable {
            var code: String
            var message: String
        }
        var error: Detail
    }

    /// Runs a command body, turning an ``NBGWError`` into the documented output and exit status.
    static func run(json: Bool, _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as NBGWError {
            if json {
                Output.json(ErrorBody(error: .init(code: error.code.rawValue, message: error.message)))
            } else {
                FileHandle.standardError.write(Data("error: \(error.code.rawValue): \(error.message)\n".utf8))
            }
            throw ExitCode(error.code.exitCode)
        }
    }

    /// Formats rows as left-aligned columns.
    static func table(_ header: [String], _ rows: [[String]]) {
        var widths = header.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        func render(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                index == cells.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
        line(render(header))
        for row in rows { line(render(row)) }
    }
}
