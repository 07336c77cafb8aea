import Foundation
import Hummingbird
import NBGWCore
import PosixSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The console batches' file work: the directory made and listed, uploads written, reports read,
/// old files removed; every call runs on one thread of its own (a ``BoundedWorkQueue``), never on
/// Swift's cooperative threads, which the watchdog's ping and the supervisors need (two on a 2-core
/// gateway): a write to a slow SD card, or an `fsync` of 64 MiB, blocks its thread for a second or
/// more.
final class ConsoleBatchFiles: Sendable {
    /// A file of the directory as a sweep sees it.
    struct Entry: Sendable, Equatable {
        var path: String
        var size: Int64
        var modified: Date
    }

    /// Names of the files the console writes there (an upload, its report): the sweep touches no other.
    static let uploadPrefix = "upload-"
    /// Why 64 KiB per read of a report being downloaded: a few hundred queue hops for a 168 MB
    /// report, and no more than that held at once.
    static let readSize = 64 * 1024

    /// The directory as configured.
    let configured: String
    /// Why one thread: the work is sequential per upload or download, and the disk is one; in order,
    /// an upload's writes never overtake each other. Why 64 waiting: each upload (at most 4 at once),
    /// download and page view has one call in flight at a time; past that the console answers 503
    /// rather than queue behind a flood of page views.
    private let queue = BoundedWorkQueue(name: "nbgwd-batchfile", threads: 1, capacity: 64)
    /// The directory with symbolic links resolved (as a batch job stores its input path), once made.
    private let resolved = Mutex<String?>(nil)

    init(directory: String) {
        configured = directory
    }

    /// Runs `work` on the queue's thread.
    ///
    /// - Throws: `work`'s error, or `RATE_LIMITED` (429) when the queue is full.
    func perform<T: Sendable>(_ work: @escaping @Sendable () throws(NBGWError) -> T) async throws(NBGWError) -> T {
        let result: Result<T, NBGWError>
        do {
            result = try await queue.run { Result { () throws(NBGWError) -> T in try work() } }
        } catch {
            throw NBGWError(
                .rateLimited,
                "the console's batch files are busy (\(error)); try again in a few seconds"
            )
        }
        return try result.get()
    }

    /// The directory, made (0700) on first use, its symbolic links resolved. On the queue.
    func directory() throws(NBGWError) -> String {
        if let known = resolved.withLock({ $0 }) { return known }
        do {
            try FileManager.default.createDirectory(atPath: configured, withIntermediateDirectories: true)
        } catch {
            throw NBGWError(
                .storeUnavailable,
                "cannot create \(configured) for console uploads: \(error.localizedDescription); give the daemon's "
                    + "user write access to the store's directory"
            )
        }
        var info = stat()
        guard lstat(configured, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw NBGWError(
                .storeUnavailable,
                "\(configured) is not a directory (console uploads go there); move it away and retry"
            )
        }
        // Uploads carry production data: the daemon's user alone, whatever the store's directory allows.
        if info.st_mode & 0o777 != 0o700 { chmod(configured, 0o700) }
        guard let real = realpath(configured, nil) else {
            throw Self.failure("cannot resolve", configured)
        }
        defer { free(real) }
        let path = String(cString: real)
        resolved.withLock { $0 = path }
        return path
    }

    /// Creates `path` for an upload: new (`O_EXCL`), 0600, not through a symbolic link. On the queue.
    func create(_ path: String) throws(NBGWError) -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Self.failure("cannot create the upload", path) }
        fchmod(fd, 0o600)
        return fd
    }

    /// Writes all of `buffer` to `fd`. On the queue.
    func write(_ buffer: ByteBuffer, to fd: Int32, path: String) throws(NBGWError) {
        let failed = buffer.withUnsafeReadableBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return true
                }
                offset += written
            }
            return false
        }
        if failed { throw Self.failure("cannot write the upload", path) }
    }

    /// Makes the upload durable and closes it. Why fsync: a batch resumed after a power cut must find
    /// the bytes its committed offsets point into (a shorter file is refused as changed). On the queue.
    func finish(_ fd: Int32, path: String) throws(NBGWError) {
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw Self.failure("cannot save the upload", path) }
    }

    /// Closes `fd` (if any) and removes `path`: an upload refused or cut off. On the queue.
    func discard(_ fd: Int32?, path: String) {
        if let fd { close(fd) }
        unlink(path)
    }

    /// Removes `paths`; missing ones are fine. On the queue.
    func remove(_ paths: [String]) {
        for path in paths { unlink(path) }
    }

    /// Every regular file of the directory (symbolic links and directories are left out). On the queue.
    func entries() throws(NBGWError) -> [Entry] {
        let directory = try directory()
        guard let stream = opendir(directory) else { throw Self.failure("cannot list", directory) }
        defer { closedir(stream) }
        var entries: [Entry] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            let path = directory + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            let modified = TimeInterval(info.st_mtim.tv_sec) + TimeInterval(info.st_mtim.tv_nsec) / 1e9
            entries.append(
                Entry(path: path, size: Int64(info.st_size), modified: Date(timeIntervalSince1970: modified))
            )
        }
        return entries
    }

    /// The size of the file at `path`, 0 when there is none (a stat: the batch's thread calls it
    /// after each chunk).
    static func size(of path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }

    /// Whether `path` is a regular file. On the queue.
    func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// Opens a report for reading: its descriptor and size, nil when it is not there. On the queue.
    func openReport(_ path: String) -> (fd: Int32, size: Int64)? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            return nil
        }
        return (fd, Int64(info.st_size))
    }

    /// The next ``readSize`` bytes of `fd` at most; nil at the end. On the queue.
    func read(_ fd: Int32, path: String) throws(NBGWError) -> ByteBuffer? {
        var buffer = ByteBufferAllocator().buffer(capacity: Self.readSize)
        var failed = false
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: Self.readSize) { raw in
            var got: Int
            repeat { got = Glibc.read(fd, raw.baseAddress, Self.readSize) } while got < 0 && errno == EINTR
            failed = got < 0
            return max(got, 0)
        }
        if failed { throw Self.failure("cannot read the report", path) }
        return buffer.readableBytes == 0 ? nil : buffer
    }

    /// Closes a descriptor opened here. On the queue.
    func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// A failure naming what, where and errno's reason, with what to do about a full disk.
    static func failure(_ what: String, _ path: String) -> NBGWError {
        let code = errno
        let reason = String(cString: strerror(code))
        let hint =
            code == ENOSPC || code == EDQUOT
            ? "; free disk space on the store's file system (or lower [console] batch_quota)"
            : code == EACCES || code == EPERM ? "; check the directory's owner (the daemon's user)" : ""
        return NBGWError(.storeUnavailable, "\(what) \(path): \(reason)\(hint)")
    }
}
