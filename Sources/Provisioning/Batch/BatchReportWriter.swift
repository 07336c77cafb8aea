import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The per-row report: `line,status,code,message,device_id,ref,note`, one row per input data line.
///
/// Rows of a chunk are buffered and written before the chunk commits; the job records the
/// report's length at each commit, and a resumed job truncates the report back to it, so a row
/// is in the report exactly when its chunk is in the store.
final class BatchReportWriter {
    static let header = "line,status,code,message,device_id,ref,note\n"

    let path: String
    private let fd: Int32
    private var pending: [UInt8] = []
    private(set) var committedLength: Int64

    /// Opens the report; `resumeAt` truncates to a committed length, nil starts a fresh report.
    init(path: String, resumeAt: Int64?) throws {
        self.path = path
        fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw BatchReportError(path: path, reason: String(cString: strerror(errno)))
        }
        pending.reserveCapacity(1 << 20)
        if let resumeAt, resumeAt > 0 {
            committedLength = resumeAt
            guard ftruncate(fd, off_t(resumeAt)) == 0 else {
                throw BatchReportError(path: path, reason: String(cString: strerror(errno)))
            }
            lseek(fd, off_t(resumeAt), SEEK_SET)
        } else {
            committedLength = 0
            _ = ftruncate(fd, 0)
            pending.append(contentsOf: BatchReportWriter.header.utf8)
        }
    }

    deinit { close(fd) }

    func append(line: Int, status: String, code: String, message: String, deviceID: String, ref: String, note: String) {
        // One access to `pending` for the whole row. Why: each access to a class's stored array is
        // checked for exclusivity at run time (swift_beginAccess), and a dozen per row were the
        // largest share of those checks on the decider thread (perf). With BatchDecider.LastFacts,
        // a million-row batch took 7.35 s of CPU instead of 7.70 (median of 6 alternating runs).
        BatchReportWriter.append(
            to: &pending,
            line: line,
            status: status,
            code: code,
            message: message,
            deviceID: deviceID,
            ref: ref,
            note: note
        )
    }

    private static func append(
        to pending: inout [UInt8],
        line: Int,
        status: String,
        code: String,
        message: String,
        deviceID: String,
        ref: String,
        note: String
    ) {
        appendNumber(line, to: &pending)
        pending.append(0x2C)
        pending.append(contentsOf: status.utf8)
        pending.append(0x2C)
        pending.append(contentsOf: code.utf8)
        pending.append(0x2C)
        appendField(message, to: &pending)
        pending.append(0x2C)
        appendField(deviceID, to: &pending)
        pending.append(0x2C)
        appendField(ref, to: &pending)
        pending.append(0x2C)
        appendField(note, to: &pending)
        pending.append(0x0A)
    }

    private static func appendNumber(_ value: Int, to pending: inout [UInt8]) {
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { raw in
            repeat {
                raw[count] = UInt8(0x30 + rest % 10)
                rest /= 10
                count += 1
            } while rest > 0 && count < 12
            for index in stride(from: count - 1, through: 0, by: -1) { pending.append(raw[index]) }
        }
    }

    /// RFC 4180 quoting when the value needs it; values are printed as-is otherwise. A value that
    /// starts with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'` (the OWASP
    /// rule against CSV injection, security review F13): a spreadsheet that opens the report (the
    /// console serves it for download) shows such a `ref` or `note` as text instead of running it as
    /// a formula (`=HYPERLINK(…)`, `+cmd|…`). Every field written here can hold what the input file
    /// said (a ref, a note, a device id or a message quoting them); the line number, status and code
    /// are ours and are written without it. Nothing reads the report back (a resume cuts it back to
    /// a committed length), so the prefix is only for people.
    ///
    /// Why through `withUTF8`'s buffer: scanning the string's `utf8` view with `contains(where:)`
    /// and appending it went through the view's generic iteration, the decider thread's largest
    /// Swift cost after reference counting (perf: 219 of its 5,897 samples in a million-row batch).
    /// The injection check looks at the first byte only.
    private static func appendField(_ value: String, to pending: inout [UInt8]) {
        var value = value
        value.withUTF8 { bytes in
            let formula = !bytes.isEmpty && startsFormula(bytes[0])
            var plain = true
            for byte in bytes where byte == 0x2C || byte == 0x22 || byte == 0x0A || byte == 0x0D {
                plain = false
                break
            }
            if plain {
                if formula { pending.append(0x27) }
                pending.append(contentsOf: bytes)
                return
            }
            pending.append(0x22)
            if formula { pending.append(0x27) }
            for byte in bytes {
                if byte == 0x22 { pending.append(0x22) }
                pending.append(byte)
            }
            pending.append(0x22)
        }
    }

    /// `=`, `+`, `-`, `@`, tab, carriage return: what a spreadsheet takes for the start of a formula.
    @inline(__always)
    static func startsFormula(_ byte: UInt8) -> Bool {
        byte == 0x3D || byte == 0x2B || byte == 0x2D || byte == 0x40 || byte == 0x09 || byte == 0x0D
    }

    /// Drops what was written after `length` (rows of chunks that did not commit) and what is
    /// buffered: the report ends where the store's progress says it does.
    func truncate(to length: Int64) throws {
        pending.removeAll(keepingCapacity: true)
        guard ftruncate(fd, off_t(length)) == 0, lseek(fd, off_t(length), SEEK_SET) >= 0 else {
            throw BatchReportError(path: path, reason: String(cString: strerror(errno)))
        }
        committedLength = length
    }

    /// Writes the buffered rows; returns the report's length once they are on file.
    func flush() throws -> Int64 {
        var offset = 0
        while offset < pending.count {
            let written = pending.withUnsafeBytes { raw in
                write(fd, raw.baseAddress! + offset, raw.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw BatchReportError(path: path, reason: String(cString: strerror(errno)))
            }
            offset += written
        }
        committedLength += Int64(pending.count)
        pending.removeAll(keepingCapacity: true)
        return committedLength
    }
}

struct BatchReportError: Error, CustomStringConvertible {
    var path: String
    var reason: String
    var description: String { "cannot write the report \(path): \(reason)" }
}
