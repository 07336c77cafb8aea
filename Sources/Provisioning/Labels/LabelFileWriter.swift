import Foundation
import NBGWCore

#if canImport(Glibc)
import Glibc
#endif

/// Writes a label file whole or not at all: a temporary file in the same directory (mode 0640),
/// synced, then renamed over the name. A reader (a print spooler watching the directory) never
/// sees half a label, and a crash leaves no partial file under the real name.
public enum LabelFileWriter {
    /// Why 0640: labels are not secret, but a factory's list of IMEIs is nobody else's business;
    /// the owner and the group (the print operators) read them.
    public static let mode: mode_t = 0o640

    public static func write(_ bytes: [UInt8], to path: String) throws(NBGWError) {
        let directory = (path as NSString).deletingLastPathComponent
        let base = (path as NSString).lastPathComponent
        let temporary = (directory.isEmpty ? "." : directory) + "/.\(base).\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode)
        guard fd >= 0 else { throw failure("create", temporary) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
            }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else {
                let error = failure("write", temporary)
                close(fd)
                unlink(temporary)
                throw error
            }
            offset += written
        }
        _ = fchmod(fd, mode)
        guard fsync(fd) == 0, close(fd) == 0 else {
            let error = failure("write", temporary)
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let error = failure("rename to \(path)", temporary)
            unlink(temporary)
            throw error
        }
    }

    static func failure(_ what: String, _ path: String) -> NBGWError {
        let reason = String(cString: strerror(errno))
        return NBGWError(
            errno == EACCES || errno == EPERM ? .permissionDenied : .invalidArgument,
            "cannot \(what) \(path): \(reason); check that the directory exists and is writable"
        )
    }
}
