import FuzzSupport

@testable import Provisioning

#if canImport(Glibc)
import Glibc
#endif

/// The streaming CSV reader (RFC 4180 plus what label exports really contain) on any file.
///
/// Input: 8 bytes that seed the plan, then the file's bytes.
///
/// Properties:
/// 1. Read in one piece (a buffer larger than the file) and with a tiny buffer (1 to 64 bytes, so
///    every record and field is split across reads at every possible place), the file gives the
///    same records.
///    Read with the unquoted fast path off (the byte loop for every byte), it gives them too.
/// 2. Records are in file order: each starts at or after the previous one's end, ends after it
///    starts and within the file; a record with a problem has no fields.
/// 3. Resuming at any record's end offset and next line (what a batch commits) gives exactly the
///    records that follow it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzCSV.run(FuzzInput(data, size))
    return 0
}

enum FuzzCSV {
    /// One file per process on tmpfs, rewritten for every input (the reader takes a path).
    static let path = "/dev/shm/nbgw-fuzz-csv-\(getpid()).csv"
    /// Resume points checked per input, drawn at random: over the millions of inputs of a run every
    /// record boundary is tried, and each resume is a full read (24 per input: ~800 inputs/s; 4:
    /// see docs/fuzzing.md).
    static let maximumResumes = 4

    static func write(_ bytes: ArraySlice<UInt8>) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        fuzzCheck(fd >= 0, "cannot create \(path)")
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                fuzzCheck(written > 0, "cannot write \(path)")
                offset += written
            }
        }
        close(fd)
    }

    static func records(
        offset: Int64 = 0,
        line: Int = 1,
        bufferSize: Int = 256 * 1024,
        scansRuns: Bool = true
    ) -> [CSVRecord] {
        do {
            let reader = try CSVReader(path: path, offset: offset, line: line, bufferSize: bufferSize)
            reader.scansUnquotedRuns = scansRuns
            var records: [CSVRecord] = []
            while let record = try reader.next() { records.append(record) }
            return records
        } catch {
            fuzzFail("reading \(path) failed: \(error)")
        }
    }

    static func run(_ input: FuzzInput) {
        let (seed, payload) = input.seedAndPayload
        var generator = SplitMix64(seed: seed)
        write(payload)
        // A buffer larger than the file reads it in one piece (and costs a file's size, not the
        // default 256 KiB, per input).
        let expected = records(bufferSize: payload.count + 1)
        let small = records(bufferSize: Int(generator.next() % 64) + 1)
        fuzzCheck(small == expected, "a small buffer reads other records: \(small) vs \(expected)")
        let byteLoop = records(bufferSize: payload.count + 1, scansRuns: false)
        fuzzCheck(byteLoop == expected, "the byte loop reads other records: \(byteLoop) vs \(expected)")

        var previousEnd: Int64 = 0
        for record in expected {
            fuzzCheck(record.startOffset >= previousEnd, "record starts before the previous one ends: \(record)")
            fuzzCheck(record.endOffset > record.startOffset, "empty record: \(record)")
            fuzzCheck(record.endOffset <= Int64(payload.count), "record ends past the file: \(record)")
            fuzzCheck(record.problem == nil || record.fields.isEmpty, "a broken record has fields: \(record)")
            previousEnd = record.endOffset
        }
        var indices = Array(expected.indices)
        if indices.count > maximumResumes {
            indices.shuffle(using: &generator)
            indices = Array(indices.prefix(maximumResumes))
        }
        for index in indices {
            let record = expected[index]
            let resumed = records(
                offset: record.endOffset,
                line: record.nextLine,
                bufferSize: Int(generator.next() % 64) + 1
            )
            fuzzCheck(
                resumed == Array(expected[(index + 1)...]),
                "resuming after record \(index) (offset \(record.endOffset), line \(record.nextLine)) gives "
                    + "\(resumed), not \(Array(expected[(index + 1)...]))"
            )
        }
    }
}
