#if canImport(Glibc)
import Glibc
#endif
#if canImport(CLinux)
import CLinux
#endif

/// Who is on the other end of a control connection, as the kernel recorded it when the client
/// connected (`SO_PEERCRED`, `SO_PEERGROUPS`, unix(7)): not what the client says about itself.
struct ControlPeer: Sendable, Hashable {
    var uid: uid_t
    var gid: gid_t
    var pid: pid_t
    /// Supplementary groups; empty when the kernel could not say.
    var groups: [gid_t]
    /// The user's name (or `uid N` when it has none): what the audit log records.
    var user: String

    init(uid: uid_t, gid: gid_t, pid: pid_t, groups: [gid_t]) {
        self.uid = uid
        self.gid = gid
        self.pid = pid
        self.groups = groups
        if let entry = getpwuid(uid), let name = entry.pointee.pw_name {
            user = String(cString: name)
        } else {
            user = "uid \(uid)"
        }
    }

    /// The credentials of the peer of `fd`; a peer the kernel cannot describe gets uid and gid
    /// `-1` (never authorised).
    init(fd: Int32) {
        #if canImport(CLinux)
        var uid: UInt32 = .max
        var gid: UInt32 = .max
        var pid: Int32 = 0
        if nbgw_peer_credentials(fd, &uid, &gid, &pid) != 0 {
            (uid, gid, pid) = (.max, .max, 0)
        }
        var groups = [UInt32](repeating: 0, count: 256)
        let count = nbgw_peer_groups(fd, &groups, Int32(groups.count))
        self.init(uid: uid, gid: gid, pid: pid, groups: count > 0 ? Array(groups.prefix(Int(count))) : [])
        #else
        self.init(uid: .max, gid: .max, pid: 0, groups: [])
        #endif
    }

    /// Whether the peer may use the socket: root, the daemon's own user, or a member of the
    /// operators' `group` (primary or supplementary).
    func isAuthorised(group: gid_t?, daemonUID: uid_t) -> Bool {
        if uid == 0 || uid == daemonUID { return uid != .max }
        guard let group else { return false }
        return gid == group || groups.contains(group)
    }
}
