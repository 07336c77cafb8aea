import Foundation
import Logging
import Testing

@testable import Daemon

#if canImport(Glibc)
import Glibc
#endif

/// ``JournalLogHandler`` writing to a real datagram socket standing in for journald, and to a real
/// pipe standing in for journald's stream when the socket cannot be used.
@Suite("journald logging")
struct JournalLogHandlerTests {
    /// A pipe whose write end plays stderr; `read()` returns what was written so far.
    final class CapturedStream {
        let readEnd: Int32
        let writeEnd: Int32

        init() throws {
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else { throw DatagramListener.Failure(description: "pipe: errno \(errno)") }
            _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
            readEnd = ends[0]
            writeEnd = ends[1]
        }

        deinit {
            close(readEnd)
            close(writeEnd)
        }

        func read() -> String {
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(readEnd, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                bytes += buffer[0..<count]
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    static func logger(_ sink: JournalSink, level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: "nbgwd") { label in JournalLogHandler(label: label, sink: sink) }
        logger.logLevel = level
        return logger
    }

    @Test("metadata keys become journal field names journald accepts")
    func fieldNames() throws {
        let cases = [
            "imei": "IMEI", "port": "PORT", "error_code": "ERROR_CODE", "store.path": "STORE_PATH",
            "http.address": "HTTP_ADDRESS", "_SYSTEMD_UNIT": "SYSTEMD_UNIT", "__x": "X", "9lives": "M_9LIVES",
            "": "M_", "message": "META_MESSAGE", "PRIORITY": "META_PRIORITY", "état-civil": "TAT_CIVIL",
            String(repeating: "k", count: 80): String(repeating: "K", count: 64),
        ]
        for (key, expected) in cases {
            let name = JournalEntry.fieldName(forMetadataKey: key)
            #expect(name == expected, "\(key.debugDescription)")
            #expect(throws: Never.self, "\(key.debugDescription) → \(name)") { try JournalRecord.check(name) }
        }
    }

    @Test("swift-log levels map to syslog priorities")
    func priorities() {
        let expected: [Logger.Level: Int] = [
            .trace: 7, .debug: 7, .info: 6, .notice: 5, .warning: 4, .error: 3, .critical: 2,
        ]
        for level in Logger.Level.allCases {
            #expect(JournalEntry.priority(level) == expected[level], "\(level)")
        }
    }

    @Test("a record reaches the socket with its priority, message, identifier and metadata as fields")
    func recordOverTheSocket() async throws {
        let directory = try TemporaryDirectory()
        let journald = try DatagramListener(path: directory.path("journal.sock"))
        let stream = try CapturedStream()
        let sink = JournalSink(socketPath: journald.socketPath, standardError: stream.writeEnd)
        Self.logger(sink).warning(
            "modem failed",
            metadata: [
                "port": "/dev/ttyUSB2", "imei": "864425038511212", "state": "failed",
                "error_code": "REGISTRATION_DENIED", "error": "denied\nby the network (#15)",
            ]
        )
        let datagram = try #require(journald.datagrams.first)
        let record = try JournalRecord(datagram: datagram)
        #expect(record["PRIORITY"] == "4")
        #expect(record["SYSLOG_IDENTIFIER"] == "nbgwd")
        #expect(record["LOGGER"] == "nbgwd")
        #expect(record["IMEI"] == "864425038511212")
        #expect(record["PORT"] == "/dev/ttyUSB2")
        #expect(record["STATE"] == "failed")
        #expect(record["ERROR_CODE"] == "REGISTRATION_DENIED")
        // The newline forces the length-prefixed form; the value arrives whole.
        #expect(record["ERROR"] == "denied\nby the network (#15)")
        #expect(record["MESSAGE"]?.hasPrefix("modem failed error=denied\nby the network (#15) error_code=") == true)
        #expect(record["CODE_FILE"]?.hasSuffix("JournalLogHandlerTests.swift") == true)
        #expect(record["CODE_FUNC"] == "recordOverTheSocket()")
        #expect(stream.read().isEmpty, "nothing goes to stderr while the socket takes the records")
    }

    @Test("without the socket every record goes to stderr as one line with its <N> prefix")
    func fallbackLines() throws {
        let directory = try TemporaryDirectory()
        let stream = try CapturedStream()
        let sink = JournalSink(socketPath: directory.path("no-journald.sock"), standardError: stream.writeEnd)
        let logger = Self.logger(sink)
        logger.notice("nbgwd starting", metadata: ["ports": "2"])
        logger.warning("modem failed", metadata: ["imei": "864425038511212", "error": "line one\nline two"])
        logger.error("nbgwd stopped")
        logger.debug("skipped")
        #expect(
            stream.read()
                == "<5>nbgwd starting ports=2\n<4>modem failed error=line one\\nline two imei=864425038511212\n"
                + "<3>nbgwd stopped\n<7>skipped\n"
        )
    }

    @Test("values are cut at a character boundary; the largest record still fits one datagram")
    func limits() throws {
        var metadata: Logger.Metadata = [:]
        for index in 0..<100 {
            metadata["key\(index)"] = .string(String(repeating: "é", count: 10_000))
        }
        let entry = JournalEntry(
            level: .error,
            message: String(repeating: "x", count: 100_000),
            metadata: metadata,
            label: "nbgwd",
            identifier: "nbgwd",
            file: "f",
            function: "g",
            line: 1
        )
        let record = try JournalRecord(datagram: entry.datagram)
        #expect(record.fields.count == 7 + JournalEntry.fieldLimit)
        for field in record.fields {
            #expect(field.value.count <= JournalEntry.messageLimit)
            // Valid UTF-8 after the cut, ending with the ellipsis when cut.
            #expect(String(validating: field.value, as: UTF8.self) != nil, "\(field.name)")
        }
        #expect(record["KEY0"]?.hasSuffix("é…") == true)

        // The default socket buffer takes it: a real send to a real socket.
        let directory = try TemporaryDirectory()
        let journald = try DatagramListener(path: directory.path("journal.sock"))
        let stream = try CapturedStream()
        let sink = JournalSink(socketPath: journald.socketPath, standardError: stream.writeEnd)
        sink.write(entry)
        #expect(journald.datagrams.first?.count == entry.datagram.count, "\(entry.datagram.count) bytes")
        #expect(stream.read().isEmpty)
    }

    @Test("the largest datagram a default socket buffer sends, measured")
    func datagramLimit() throws {
        // Why this test: JournalSink relies on records under this size instead of memfd passing.
        let directory = try TemporaryDirectory()
        let journald = try DatagramListener(path: directory.path("journal.sock"))
        let sink = JournalSink(socketPath: journald.socketPath)
        var low = 1024
        var high = 4 * 1024 * 1024
        while low < high {
            let middle = (low + high + 1) / 2
            if sink.send([UInt8](repeating: 65, count: middle)) {
                low = middle
                journald.drain()
            } else {
                high = middle - 1
            }
        }
        let largestRecord =
            7 * 64 + JournalEntry.messageLimit + JournalEntry.fieldLimit * (JournalEntry.valueLimit + 80)
        #expect(largestRecord < low, "largest record \(largestRecord) bytes, largest datagram \(low) bytes")
        print("largest datagram at the default socket buffer: \(low) bytes; largest record: \(largestRecord) bytes")
    }

    @Test("JOURNAL_STREAM counts only when it names stderr's device and inode")
    func streamDetection() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("stderr.log")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let descriptor = open(path, O_WRONLY | O_CLOEXEC)
        defer { close(descriptor) }
        var info = stat()
        #expect(fstat(descriptor, &info) == 0)
        let matching = "\(info.st_dev):\(info.st_ino)"
        #expect(JournalSink.isJournalStream(matching, descriptor: descriptor))
        #expect(!JournalSink.isJournalStream("\(info.st_dev):\(info.st_ino + 1)", descriptor: descriptor))
        #expect(!JournalSink.isJournalStream("\(info.st_dev)", descriptor: descriptor))
        #expect(!JournalSink.isJournalStream("x:y", descriptor: descriptor))

        let sink = JournalSink.detect(
            environment: ["JOURNAL_STREAM": matching, "NBGW_JOURNAL_SOCKET": "/run/test.sock"],
            standardError: descriptor
        )
        #expect(sink?.socketPath == "/run/test.sock")
        #expect(
            JournalSink.detect(environment: ["JOURNAL_STREAM": matching], standardError: descriptor)?.socketPath
                == "/run/systemd/journal/socket"
        )
        #expect(JournalSink.detect(environment: ["JOURNAL_STREAM": "1:2"], standardError: descriptor) == nil)
        #expect(JournalSink.detect(environment: [:], standardError: descriptor) == nil)
    }
}
