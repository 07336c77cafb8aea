import Foundation
import NBGWCore

#if canImport(Glibc)
import Glibc
#endif

/// How ``Registry/init(path:clock:busyTimeout:walCheckpointing:access:)`` treats the store's files.
///
/// - `ownerOnly` (the default): a missing store is created, the file with mode 0600 and its directory
///   with 0700. A developer's store, and what every command did before the daemon shared its store.
/// - `existing`: never creates anything; a missing store is `STORE_NOT_FOUND` and a store this user
///   may not open is `PERMISSION_DENIED` naming the group to join. The CLI's read commands use it.
/// - `shared(group:)`: the daemon's store, shared with the operators' group (`[store] group`): the
///   directory 2770 (setgid, so the `-wal` and `-shm` files SQLite creates get the group too, whoever
///   creates them), the file 0660 in that group. SQLite gives `-wal` and `-shm` the database file's
///   mode (and `fchmod`s them past the umask), so every process of the group can open them.
public struct StoreFileAccess: Sendable, Equatable {
    /// Create the file and its directory when missing.
    public var createIfMissing: Bool
    /// The group sharing the files; nil: the owner alone.
    public var group: gid_t?

    public init(createIfMissing: Bool, group: gid_t?) {
        self.createIfMissing = createIfMissing
        self.group = group
    }

    public static let ownerOnly = StoreFileAccess(createIfMissing: true, group: nil)
    public static let existing = StoreFileAccess(createIfMissing: false, group: nil)
    public static func shared(group: gid_t) -> StoreFileAccess {
        StoreFileAccess(createIfMissing: true, group: group)
    }

    /// Mode of the database file (and so of `-wal` and `-shm`).
    var fileMode: mode_t { group == nil ? 0o600 : 0o660 }
    /// Mode of the directory made for it.
    var directoryMode: mode_t { group == nil ? 0o700 : 0o2770 }
}

extension Registry {
    /// Makes sure the files can be opened as `access` says before SQLite opens them: creates them
    /// when allowed (never readable by others, not even for a moment), or says exactly why not.
    static func prepareFiles(_ path: String, access: StoreFileAccess) throws(NBGWError) {
        var info = stat()
        if stat(path, &info) == 0 {
            if let problem = accessProblem(path: path) { throw problem }
            return
        }
        let missing = errno == ENOENT
        guard missing else {
            throw accessProblem(path: path)
                ?? NBGWError(.storeUnavailable, "cannot look at the store \(path): \(String(cString: strerror(errno)))")
        }
        guard access.createIfMissing else {
            throw NBGWError(
                .storeNotFound,
                "no store at \(path); the daemon creates it when it first starts (`systemctl start nbgwd`), "
                    + "or pass --db PATH"
            )
        }
        try createFiles(path, access: access)
    }

    /// Creates the directory (when missing) and the empty database file with `access`'s modes and group.
    private static func createFiles(_ path: String, access: StoreFileAccess) throws(NBGWError) {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw accessProblem(path: directory)
                    ?? NBGWError(
                        .storeUnavailable,
                        "cannot create the store's directory \(directory): \(error.localizedDescription); "
                            + "pass --db PATH or set NBGW_DB to a writable location"
                    )
            }
            // chmod after mkdir: the umask (the unit's UMask=0077) would take the group's bits away.
            _ = chmod(directory, access.directoryMode)
            if let group = access.group { _ = chown(directory, uid_t.max, group) }
        }
        let fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, access.fileMode)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            throw accessProblem(path: path)
                ?? NBGWError(
                    .storeUnavailable,
                    "cannot open the store \(path): \(reason); pass --db PATH or set NBGW_DB to a writable location"
                )
        }
        defer { close(fd) }
        if let group = access.group { _ = fchown(fd, uid_t.max, group) }
        _ = fchmod(fd, access.fileMode)
    }

    /// Gives an existing store's directory, file, `-wal` and `-shm` the modes and group of
    /// `shared(group:)`, as far as this process owns them. Returns what it could not change (for
    /// the daemon's log): a store made before `[store] group` existed, or by another user.
    public static func shareFiles(path: String, group: gid_t) -> [String] {
        let access = StoreFileAccess.shared(group: group)
        var problems: [String] = []
        let directory = (path as NSString).deletingLastPathComponent
        let targets: [(String, mode_t)] =
            [(directory.isEmpty ? "." : directory, access.directoryMode)]
            + ["", "-wal", "-shm"].map { (path + $0, access.fileMode) }
        for (target, mode) in targets {
            var info = stat()
            guard stat(target, &info) == 0 else { continue }
            if info.st_gid != group, chown(target, uid_t.max, group) != 0 {
                problems.append(
                    "\(target): cannot give it group \(groupName(group)): \(String(cString: strerror(errno)))"
                )
            }
            if info.st_mode & 0o7777 != mode, chmod(target, mode) != 0 {
                problems.append(
                    "\(target): cannot set mode \(String(mode, radix: 8)): \(String(cString: strerror(errno)))"
                )
            }
        }
        return problems
    }

    /// Why this process cannot open the store at `path` for reading and writing, or nil when it can
    /// (or when the reason is not a permission): the directory must be searchable, the file, `-wal`
    /// and `-shm` (those that exist) readable and writable. Names the group that has access.
    public static func accessProblem(path: String) -> NBGWError? {
        let directory = (path as NSString).deletingLastPathComponent
        var blocked: String?
        var needed = ""
        if !directory.isEmpty, faccessat(AT_FDCWD, directory, X_OK, AT_EACCESS) != 0, errno == EACCES {
            blocked = directory
            needed = "enter"
        } else {
            for candidate in [path, path + "-wal", path + "-shm"] {
                if faccessat(AT_FDCWD, candidate, R_OK | W_OK, AT_EACCESS) != 0, errno == EACCES {
                    blocked = candidate
                    needed = "read and write"
                    break
                }
            }
        }
        guard let blocked else { return nil }
        var info = stat()
        guard stat(blocked, &info) == 0 || lstat(blocked, &info) == 0 else {
            return NBGWError(
                .permissionDenied,
                "cannot \(needed) \(blocked) (the store \(path)): permission denied; ask the gateway's administrator "
                    + "for access, or pass --db PATH"
            )
        }
        let group = groupName(info.st_gid)
        let user = userName(geteuid())
        return NBGWError(
            .permissionDenied,
            "cannot \(needed) \(blocked) (the store \(path)): permission denied (owner \(userName(info.st_uid)), "
                + "group \(group), mode \(String(info.st_mode & 0o7777, radix: 8))); join group \(group) "
                + "(`sudo adduser \(user) \(group)`, then log in again), or pass --db PATH"
        )
    }

    /// The name of group `gid`, or the number.
    static func groupName(_ gid: gid_t) -> String {
        guard let entry = getgrgid(gid), let name = entry.pointee.gr_name else { return String(gid) }
        return String(cString: name)
    }

    /// The name of user `uid`, or the number.
    static func userName(_ uid: uid_t) -> String {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return String(uid) }
        return String(cString: name)
    }
}
