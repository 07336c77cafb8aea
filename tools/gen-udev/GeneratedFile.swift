import Foundation

/// One file the generator writes: where, what it holds now, and what the catalogue says it should hold.
struct GeneratedFile {
    /// Relative to the repository's root: `udev-rules/90-nbgw.rules`.
    var path: String
    var current: String
    var expected: String

    var isCurrent: Bool { current == expected }

    /// The first line where the two differ, for the message of a stale file.
    var firstDifference: String {
        let have = current.split(separator: "\n", omittingEmptySubsequences: false)
        let want = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let line =
            zip(have, want).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(have.count, want.count)
        func quoted(_ lines: [Substring]) -> String {
            line < lines.count ? "\"\(lines[line])\"" : "(end of file)"
        }
        return "line \(line + 1): the file has \(quoted(have)), the catalogue generates \(quoted(want))"
    }

    /// Replaces the file in one step (a new file renamed over the old one), with the old file's mode.
    func write(root: URL) throws {
        let url = root.appendingPathComponent(path)
        let mode = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.posixPermissions] ?? 0o644
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).nbgw-gen")
        do {
            try Data(expected.utf8).write(to: temporary)
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: temporary.path)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw GeneratorFailure(description: "\(path): cannot write \(temporary.path): \(error)")
        }
        guard rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw GeneratorFailure(description: "\(path): cannot replace it with \(temporary.path): \(reason)")
        }
    }
}
