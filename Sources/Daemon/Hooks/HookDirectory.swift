import Foundation
import PosixSupport

#if canImport(Glibc)
import Glibc
#endif

/// The executables of `[hooks] directory`, read afresh for every state change (a hook added or
/// removed counts from the next change, no restart), in byte order of their names.
///
/// Who may run code as the daemon's user decides what runs: the directory and each hook must be
/// owned by root or by that user and writable by no one else (neither other users nor a group
/// other than root's: operators in group `nbgw` may read the store, not run code as the daemon).
/// A hook that breaks this is refused with a warning; the others still run.
public struct HookDirectory: Sendable {
    /// One file of the directory.
    public enum Entry: Sendable, Equatable {
        /// To run.
        case hook(name: String, path: String)
        /// Not run, with a warning: why, and what to do.
        case refused(name: String, reason: String)
        /// Not a hook (hidden, a package manager's backup, not executable, not a regular file);
        /// logged at debug level.
        case skipped(name: String, reason: String)
    }

    public let path: String
    /// The daemon's effective user id (owners allowed besides root).
    public let user: uid_t

    public init(path: String, user: uid_t = geteuid()) {
        self.path = path
        self.user = user
    }

    /// Suffixes of files package managers and editors leave next to a configuration file
    /// (run-parts(8) skips them too).
    static let backupSuffixes = [
        "~", ".dpkg-old", ".dpkg-new", ".dpkg-dist", ".dpkg-tmp", ".ucf-old", ".ucf-new", ".ucf-dist", ".rpmnew",
        ".rpmsave", ".rpmorig", ".swp", ".bak",
    ]

    /// The directory's entries in run order, or why none can run (missing, not a directory, or
    /// owned or writable by the wrong users).
    public func entries() -> Result<[Entry], HookDirectoryError> {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            return .failure(
                HookDirectoryError(
                    "the hooks directory \(path) cannot be read (\(Errno.message(code))): create it "
                        + "(install -d -m 0755 \(path)) or remove [hooks] directory"
                )
            )
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            return .failure(HookDirectoryError("\(path) is not a directory: point [hooks] directory at one"))
        }
        if let problem = ownershipProblem(info, what: "the hooks directory \(path)") {
            return .failure(HookDirectoryError(problem + "; no hook runs until it is fixed"))
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            return .failure(HookDirectoryError("cannot list \(path): \(error)"))
        }
        return .success(
            names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map(entry(named:))
        )
    }

    func entry(named name: String) -> Entry {
        if name.hasPrefix(".") { return .skipped(name: name, reason: "hidden") }
        if let suffix = Self.backupSuffixes.first(where: { name.hasSuffix($0) }) {
            return .skipped(name: name, reason: "a backup or package-manager file (\(suffix))")
        }
        let file = path.hasSuffix("/") ? path + name : path + "/" + name
        var info = stat()
        guard stat(file, &info) == 0 else {
            return .skipped(name: name, reason: "cannot be read (\(Errno.current.description))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else { return .skipped(name: name, reason: "not a regular file") }
        guard access(file, X_OK) == 0 else {
            return .skipped(name: name, reason: "not executable (chmod 0755 to enable it)")
        }
        if let problem = ownershipProblem(info, what: "hook \(file)") {
            return .refused(name: name, reason: problem)
        }
        return .hook(name: name, path: file)
    }

    /// Why a file owned or writable as `info` says must not run as the daemon, or nil.
    func ownershipProblem(_ info: stat, what: String) -> String? {
        let mode = info.st_mode & 0o7777
        let octal = String(mode, radix: 8)
        if info.st_uid != 0, info.st_uid != user {
            return "\(what) is owned by uid \(info.st_uid), neither root nor the daemon's user (uid \(user)): "
                + "chown root \(what.split(separator: " ").last ?? "")"
        }
        if mode & 0o002 != 0 {
            return "\(what) is writable by every user (mode \(octal)): chmod o-w it"
        }
        if mode & 0o020 != 0, info.st_gid != 0 {
            return "\(what) is writable by group \(info.st_gid) (mode \(octal)), whose members could run code as "
                + "the daemon: chmod g-w it"
        }
        return nil
    }
}

/// Why the hooks directory cannot be used.
public struct HookDirectoryError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
