import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A streaming RFC 4180 reader: quoted fields with embedded commas, doubled quotes and line
/// breaks; CRLF, LF or lone CR; an optional UTF-8 byte order mark. Memory stays bounded by the
/// longest record (capped at ``maximumRecordBytes``), whatever the file's size.
///
/// Broken records do not stop the stream: a record with invalid UTF-8, a stray quote or an
/// over-long field comes back with ``CSVRecord/problem`` set and reading resumes at the next
/// physical line, so one bad line costs one report row. Empty lines are skipped.
public final class CSVReader {
    /// Records longer than this are refused (INVALID_ROW): real label rows are under 1 KiB.
    public static let maximumRecordBytes = 256 * 1024

    public let path: String
    public let fileSize: Int64
    private let fd: Int32
    private var buffer: [UInt8]
    /// Valid bytes in `buffer`.
    private var count = 0
    /// Parse position in `buffer`.
    private var position = 0
    /// File offset of `buffer[0]`.
    private var bufferOffset: Int64
    private var eof = false
    private var line: Int
    /// Whether an unquoted field's bytes are taken a run at a time (``appendUnquotedRun(to:recordStart:)``);
    /// off, the byte loop takes every byte. The tests and fuzz-csv read with both and compare.
    var scansUnquotedRuns = true
    /// The field being read's bytes, kept from record to record with its capacity, and the last
    /// record's field count (what the next record reserves).
    ///
    /// Why: a field buffer and a field array made new for every record grew from empty by
    /// reallocation, record after record; array growth was the reader thread's largest source of
    /// allocations in a million-row batch (perf). The scratch holds at most one record's bytes
    /// (``maximumRecordBytes``).
    private var fieldScratch: [UInt8] = []
    private var lastFieldCount = 0

    /// Opens `path` positioned at `offset` (a record boundary from an earlier ``CSVRecord/endOffset``),
    /// whose physical line is `line`.
    public init(path: String, offset: Int64 = 0, line: Int = 1, bufferSize: Int = 256 * 1024) throws {
        self.path = path
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw CSVReaderError.cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
        var info = stat()
        fstat(fd, &info)
        fileSize = Int64(info.st_size)
        buffer = [UInt8](repeating: 0, count: max(bufferSize, 1))
        bufferOffset = offset
        self.line = line
        if offset > 0 { lseek(fd, off_t(offset), SEEK_SET) }
        if offset == 0 {
            while count < 3, try fill() {}
            if count >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF { position = 3 }
        }
    }

    deinit { close(fd) }

    /// The offset of the next unread byte.
    public var offset: Int64 { bufferOffset + Int64(position) }

    /// Reads more bytes after `count`, moving the unparsed tail (from `keepFrom`) to the front first.
    /// Returns false at end of file.
    private func fill(keepFrom: Int? = nil) throws -> Bool {
        if eof { return false }
        let keep = keepFrom ?? position
        if keep > 0 {
            let tail = count - keep
            if tail > 0 {
                buffer.withUnsafeMutableBufferPointer { raw in
                    _ = memmove(raw.baseAddress!, raw.baseAddress! + keep, tail)
                }
            }
            bufferOffset += Int64(keep)
            count = tail
            position -= keep
        }
        if count == buffer.count {
            // One record fills the buffer: grow it up to the record cap (plus room to find its end).
            guard buffer.count < CSVReader.maximumRecordBytes * 2 else { return false }
            buffer.append(contentsOf: repeatElement(0, count: buffer.count))
        }
        let got = buffer.withUnsafeMutableBufferPointer { raw in
            read(fd, raw.baseAddress! + count, raw.count - count)
        }
        if got < 0 {
            throw CSVReaderError.readFailed(path: path, reason: String(cString: strerror(errno)))
        }
        if got == 0 {
            eof = true
            return false
        }
        count += got
        return true
    }

    @discardableResult
    private func fill() throws -> Bool { try fill(keepFrom: nil) }

    /// The next record, or nil at end of file.
    public func next() throws -> CSVRecord? {
        // Skip empty lines (a run of CR/LF between records).
        while true {
            if position == count, try !fill() { return nil }
            let byte = buffer[position]
            if byte == 0x0A {
                line += 1
                position += 1
            } else if byte == 0x0D {
                position += 1
                if position == count { _ = try fill() }
                if position < count, buffer[position] == 0x0A { position += 1 }
                line += 1
            } else {
                break
            }
        }
        return try readRecord()
    }

    private enum State {
        case fieldStart, unquoted, quoted, quoteInQuoted
    }

    private func readRecord() throws -> CSVRecord {
        var start = position
        let startOffset = offset
        let startLine = line
        var fields: [String] = []
        fields.reserveCapacity(lastFieldCount)
        var field: [UInt8] = []
        swap(&field, &fieldScratch)
        defer {
            lastFieldCount = fields.count
            field.removeAll(keepingCapacity: true)
            swap(&field, &fieldScratch)
        }
        var state = State.fieldStart
        var problem: String?
        /// Offset (in the file) just past the record's first physical line break, for resync.
        var firstBreakEnd: Int64?
        var linesInRecord = 0

        func finishField() {
            if problem == nil {
                // Why two paths: ASCII (nearly every label) decodes with a straight copy; only
                // non-ASCII bytes need full UTF-8 validation.
                if let text = field.allSatisfy({ $0 < 0x80 })
                    ? String(decoding: field, as: UTF8.self) : String(validating: field, as: UTF8.self)
                {
                    fields.append(text)
                } else {
                    problem = "field \(fields.count + 1) is not valid UTF-8"
                }
            }
            field.removeAll(keepingCapacity: true)
        }

        while true {
            if position == count {
                let before = position - start
                let more = try fill(keepFrom: start)
                start = position - before
                if !more {
                    // End of file ends the record, except inside quotes.
                    if state == .quoted {
                        return resync(
                            startOffset: startOffset,
                            startLine: startLine,
                            firstBreakEnd: firstBreakEnd,
                            problem: count - start >= CSVReader.maximumRecordBytes
                                ? "record is longer than \(CSVReader.maximumRecordBytes) bytes"
                                : "a quoted field is never closed (missing \")"
                        )
                    }
                    finishField()
                    if let problem, firstBreakEnd != nil {
                        // A broken record that swallowed line breaks (a stray quote): report it once
                        // and read the lines it swallowed as records of their own.
                        return resync(
                            startOffset: startOffset,
                            startLine: startLine,
                            firstBreakEnd: firstBreakEnd,
                            problem: problem
                        )
                    }
                    return CSVRecord(
                        fields: problem == nil ? fields : [],
                        line: startLine,
                        startOffset: startOffset,
                        endOffset: offset,
                        nextLine: line,
                        problem: problem
                    )
                }
            }
            if position - start > CSVReader.maximumRecordBytes {
                return resync(
                    startOffset: startOffset,
                    startLine: startLine,
                    firstBreakEnd: firstBreakEnd,
                    problem: "record is longer than \(CSVReader.maximumRecordBytes) bytes"
                )
            }
            let byte = buffer[position]
            position += 1
            switch state {
            case .fieldStart, .unquoted:
                switch byte {
                case 0x2C:  // ,
                    finishField()
                    state = .fieldStart
                case 0x0A, 0x0D:
                    if byte == 0x0D {
                        if position == count {
                            let before = position - start
                            _ = try fill(keepFrom: start)
                            start = position - before
                        }
                        if position < count, buffer[position] == 0x0A { position += 1 }
                    }
                    line += 1
                    finishField()
                    if let problem, firstBreakEnd != nil {
                        // A broken record that swallowed line breaks (a stray quote): report it once
                        // and read the lines it swallowed as records of their own.
                        return resync(
                            startOffset: startOffset,
                            startLine: startLine,
                            firstBreakEnd: firstBreakEnd,
                            problem: problem
                        )
                    }
                    return CSVRecord(
                        fields: problem == nil ? fields : [],
                        line: startLine,
                        startOffset: startOffset,
                        endOffset: offset,
                        nextLine: line,
                        problem: problem
                    )
                case 0x22:  // "
                    if state == .fieldStart {
                        state = .quoted
                    } else if problem == nil {
                        problem = "field \(fields.count + 1) has a quote inside an unquoted value"
                    }
                default:
                    field.append(byte)
                    state = .unquoted
                    if scansUnquotedRuns { appendUnquotedRun(to: &field, recordStart: start) }
                }
            case .quoted:
                if byte == 0x22 {
                    state = .quoteInQuoted
                } else {
                    if byte == 0x0D, position == count {
                        // A CR that ends the buffer: read on before deciding whether an LF follows,
                        // so a CR LF split across two reads is one line break, as in one read
                        // (found by fuzz-csv: it was counted twice and the resync point moved).
                        let before = position - start
                        _ = try fill(keepFrom: start)
                        start = position - before
                    }
                    if byte == 0x0A || (byte == 0x0D && (position >= count || buffer[position] != 0x0A)) {
                        linesInRecord += 1
                        if firstBreakEnd == nil { firstBreakEnd = offset }
                    }
                    field.append(byte)
                }
            case .quoteInQuoted:
                switch byte {
                case 0x22:
                    field.append(0x22)
                    state = .quoted
                case 0x2C:
                    finishField()
                    state = .fieldStart
                case 0x0A, 0x0D:
                    position -= 1
                    line += linesInRecord
                    linesInRecord = 0
                    state = .unquoted
                default:
                    if problem == nil { problem = "field \(fields.count + 1) has text after its closing quote" }
                    state = .unquoted
                }
            }
            if state != .quoted && state != .quoteInQuoted && linesInRecord > 0 {
                line += linesInRecord
                linesInRecord = 0
            }
        }
    }

    /// Takes the rest of an unquoted field that is already in the buffer: the bytes from
    /// `position` up to the next comma, quote, CR or LF, or the buffer's end, or the record's
    /// length cap. The byte loop would take the same bytes one at a time with the same result;
    /// this stops where it would act on a byte (a delimiter, a quote, the cap's check, a refill).
    ///
    /// Why: the byte loop was the reader thread's largest cost in a million-row batch, its state
    /// machine run for each byte of label URLs that hold no special byte at all. The reader's
    /// own samples fell from 474 to 266 (perf, `tools/bench-csv.sh`'s input).
    private func appendUnquotedRun(to field: inout [UInt8], recordStart start: Int) {
        // The loop reads the byte at `p` only while `p - start <= maximumRecordBytes`.
        let end = min(count, start + CSVReader.maximumRecordBytes + 1)
        guard position < end else { return }
        let runEnd = buffer.withUnsafeBufferPointer { bytes in
            var index = position
            while index < end {
                let byte = bytes[index]
                if byte == 0x2C || byte == 0x22 || byte == 0x0A || byte == 0x0D { break }
                index += 1
            }
            return index
        }
        field.append(contentsOf: buffer[position..<runEnd])
        position = runEnd
    }

    /// Gives up on a record whose quoted field never closes (or that is too long): report it and
    /// restart at the line after the one it began on, so the rest of the file is still read.
    private func resync(startOffset: Int64, startLine: Int, firstBreakEnd: Int64?, problem: String) -> CSVRecord {
        let restart = firstBreakEnd ?? endOfCurrentLine()
        _ = lseek(fd, off_t(restart), SEEK_SET)
        bufferOffset = restart
        count = 0
        position = 0
        eof = restart >= fileSize
        line = startLine + 1
        return CSVRecord(
            fields: [],
            line: startLine,
            startOffset: startOffset,
            endOffset: restart,
            nextLine: line,
            problem: problem
        )
    }

    /// The offset just past the next line break from the current position (or the end of file),
    /// reading on without keeping what it skips.
    private func endOfCurrentLine() -> Int64 {
        while true {
            while position < count {
                let byte = buffer[position]
                position += 1
                if byte == 0x0A { return offset }
                if byte == 0x0D {
                    if position == count { _ = try? fill(keepFrom: position) }
                    if position < count, buffer[position] == 0x0A { position += 1 }
                    return offset
                }
            }
            guard (try? fill(keepFrom: position)) == true else { return fileSize }
        }
    }
}

/// Why a CSV file could not be read at all.
public enum CSVReaderError: Error, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)
    case readFailed(path: String, reason: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open \(path): \(reason)"
        case .readFailed(let path, let reason): "cannot read \(path): \(reason)"
        }
    }
}
