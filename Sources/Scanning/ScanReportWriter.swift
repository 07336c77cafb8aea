import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A scan session's report: the CSV batch report's columns (`line,status,code,message,device_id,
/// ref,note`), one row per scan: `line` is the scan's number, `ref` the payload as scanned, `note`
/// the time and the cloud's state. Each row is written (one `write(2)`) before the next scan is
/// read, so a killed session loses nothing it answered; a session appends to an existing report.
/// Mode 0600, like the batch report.
public final class ScanReportWriter: Sendable {
    public static let header = "line,status,code,message,device_id,ref,note\n"

    public let path: String
    private let fd: Int32

    public init(path: String) throws(ScanReportError) {
        self.path = path
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw ScanReportError(path: path, reason: String(cString: strerror(errno))) }
        var status = stat()
        if fstat(fd, &status) == 0, status.st_size == 0 {
            try write(Self.header)
        }
    }

    deinit { close(fd) }

    public func append(_ outcome: ScanOutcome, at date: Date) throws(ScanReportError) {
        let time = date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        let note = [time, outcome.cloudSync.map { "cloud \($0)" }, outcome.repeatOf.map { "repeat of \($0)" }]
            .compactMap { $0 }.joined(separator: " ")
        let fields = [
            String(outcome.number), outcome.status.rawValue, outcome.code ?? "", outcome.message,
            outcome.deviceID ?? "", outcome.payload ?? "", note,
        ]
        try write(fields.map(Self.quoted).joined(separator: ",") + "\n")
    }

    /// RFC 4180 quoting when needed; a field starting with `=`, `+`, `-`, `@`, a tab or a carriage
    /// return is prefixed with `'` (the OWASP rule against CSV injection, as the batch report does)
    /// so a spreadsheet does not run a scanned payload or a message quoting it as a formula.
    static func quoted(_ value: String) -> String {
        var text = value
        if let first = text.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) { text = "'" + text }
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    private func write(_ text: String) throws(ScanReportError) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
            }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { throw ScanReportError(path: path, reason: String(cString: strerror(errno))) }
            offset += written
        }
    }
}

public struct ScanReportError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "cannot write the scan report \(path): \(reason)" }
}
