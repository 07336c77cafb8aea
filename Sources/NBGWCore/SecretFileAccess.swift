#if canImport(Glibc)
import CLinux
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Who besides this process may read a file that holds a secret (the store's secrets key, the
/// ingest API's TLS private key), from its owner, its mode and, when it has one, its POSIX access
/// ACL. The rule (docs/operations.md, "Who can do what"): the file belongs to root or to this
/// process's user, and nobody may read it but its owner, this process's user and this process's
/// own primary group. Under the packaged unit that group is `nbgwd`, the daemon's alone; the
/// operators' group `nbgw` is never it, so a key in group `nbgw` that the group may read is refused.
///
/// Why the ACL: systemd hands a service its credentials (`LoadCredential=`) as root-owned files
/// that a named-user ACL entry lets the service's user read. With an ACL the mode's group bits are
/// the ACL's mask, not the owning group's permission, so the mode alone would misread such a file.
public enum SecretFileAccess {
    /// What is wrong with the file `info` describes (its ACL read from `descriptor`), as a phrase
    /// that follows the file's name ("is readable by group nbgw (mode 640)"), or nil when only
    /// the allowed readers may read it.
    ///
    /// - Parameters:
    ///   - user: the user allowed besides root (this process's effective user by default).
    ///   - group: the group allowed to read (this process's effective primary group by default).
    public static func problem(
        descriptor: Int32,
        info: stat,
        user: uid_t = geteuid(),
        group: gid_t = getegid()
    ) -> String? {
        let mode = info.st_mode & 0o777
        let modeText = String(mode, radix: 8)
        if info.st_uid != 0, info.st_uid != user {
            return "belongs to user \(userName(info.st_uid)), not to root or \(userName(user)) (the user reading it)"
        }
        let entries = accessACL(descriptor: descriptor)
        guard let entries else {
            if mode & 0o004 != 0 { return "is readable by every user on this machine (mode \(modeText))" }
            if mode & 0o040 != 0, info.st_gid != group {
                return "is readable by group \(groupName(info.st_gid)) (mode \(modeText))"
            }
            return nil
        }
        // The mask limits every entry but the owner's and other's; no mask: nothing is limited.
        let mask = entries.first { $0.tag == ACLTag.mask }?.permissions ?? 0o7
        for entry in entries where entry.permissions & 0o4 != 0 {
            switch entry.tag {
            case ACLTag.other:
                return "is readable by every user on this machine (mode \(modeText), ACL)"
            case ACLTag.groupObject where mask & 0o4 != 0 && info.st_gid != group:
                return "is readable by group \(groupName(info.st_gid)) (ACL)"
            case ACLTag.user where mask & 0o4 != 0 && entry.id != 0 && entry.id != user:
                return "is readable by user \(userName(entry.id)) through its ACL"
            case ACLTag.group where mask & 0o4 != 0 && entry.id != group:
                return "is readable by group \(groupName(entry.id)) through its ACL"
            default:
                continue
            }
        }
        return nil
    }

    /// The tags of `linux/posix_acl_xattr.h`.
    enum ACLTag {
        static let userObject: UInt16 = 0x01
        static let user: UInt16 = 0x02
        static let groupObject: UInt16 = 0x04
        static let group: UInt16 = 0x08
        static let mask: UInt16 = 0x10
        static let other: UInt16 = 0x20
    }

    struct ACLEntry: Equatable {
        var tag: UInt16
        var permissions: UInt16
        var id: UInt32
    }

    /// The file's access ACL (`system.posix_acl_access`), nil when it has none (or the file system
    /// keeps none: then the mode is the whole truth).
    static func accessACL(descriptor: Int32) -> [ACLEntry]? {
        #if os(Linux)
        var buffer = [UInt8](repeating: 0, count: 4 + 8 * 64)
        let count = buffer.withUnsafeMutableBytes { bytes in
            fgetxattr(descriptor, "system.posix_acl_access", bytes.baseAddress, bytes.count)
        }
        guard count > 0 else { return nil }
        return parseACL(Array(buffer[..<count]))
        #else
        return nil
        #endif
    }

    /// Parses the extended attribute's bytes: a little-endian version 2, then 8-byte entries
    /// (tag, permissions, id). Nil when malformed (then the mode decides).
    static func parseACL(_ bytes: [UInt8]) -> [ACLEntry]? {
        func u16(_ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> UInt32 { UInt32(u16(at)) | UInt32(u16(at + 2)) << 16 }
        guard bytes.count >= 4, (bytes.count - 4) % 8 == 0, u32(0) == 2 else { return nil }
        return stride(from: 4, to: bytes.count, by: 8).map {
            ACLEntry(tag: u16($0), permissions: u16($0 + 2), id: u32($0 + 4))
        }
    }

    /// The name of user `uid`, or the number.
    public static func userName(_ uid: uid_t) -> String {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return String(uid) }
        return String(cString: name)
    }

    /// The name of group `gid`, or the number.
    public static func groupName(_ gid: gid_t) -> String {
        guard let entry = getgrgid(gid), let name = entry.pointee.gr_name else { return String(gid) }
        return String(cString: name)
    }
}
