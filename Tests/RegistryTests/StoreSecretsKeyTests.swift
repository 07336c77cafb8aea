import Foundation
import NBGWCore
import Registry
import Testing

#if canImport(Glibc)
import CLinux
import Glibc
#endif

/// The secrets key file as the daemon and the CLI read it: real files, their owners, modes and
/// POSIX ACLs (the kernel's), the key never in a message.
@Suite("The secrets key file: its content, owner, mode and ACL")
struct StoreSecretsKeyTests {
    let store: TestStore

    init() throws { store = try TestStore() }

    /// Writes `bytes` to `name` with `mode`; returns the path.
    func write(_ name: String, _ bytes: [UInt8], mode: mode_t = 0o600) throws -> String {
        let path = store.directory.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(chmod(path, mode) == 0)
        return path
    }

    static let raw = (0..<32).map { UInt8($0 &* 7 &+ 3) }

    func refusal(_ path: String) throws -> NBGWError {
        try #require(throws: NBGWError.self) { try StoreSecretsKey.load(path: path) }
    }

    @Test("32 raw bytes or their base64 line load as the same key; anything else is not a key")
    func content() throws {
        let fromRaw = try StoreSecretsKey.load(path: try write("raw.key", Self.raw))
        let base64 = Array((Data(Self.raw).base64EncodedString() + "\n").utf8)
        let fromText = try StoreSecretsKey.load(path: try write("text.key", base64))
        #expect(fromRaw.id == fromText.id)
        #expect(fromRaw.id == (try StoreSecretsKey(bytes: Self.raw)).id)
        #expect(fromRaw.id.count == 8)
        #expect(!"\(fromRaw)".contains(Data(Self.raw).base64EncodedString()))
        for (name, bytes) in [
            ("short.key", Array(Self.raw.prefix(31))), ("long.key", Self.raw + [0]), ("empty.key", []),
            ("text.key2", Array("not a key at all\n".utf8)), ("huge.key", [UInt8](repeating: 65, count: 4096)),
        ] {
            let error = try refusal(try write(name, bytes))
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("is not a secrets key"), "\(name): \(error)")
        }
    }

    @Test("A missing key is SECRETS_KEY_MISSING naming the file and how to make one")
    func missing() throws {
        let path = store.directory.appendingPathComponent("absent.key").path
        let error = try refusal(path)
        #expect(error.code == .secretsKeyMissing)
        #expect(error.message.contains(path) && error.message.contains("head -c 32 /dev/urandom"), "\(error)")
    }

    @Test("A key others, another group or another user can read is refused, saying which and what to do")
    func permissions() throws {
        for mode: mode_t in [0o644, 0o604] {
            let error = try refusal(try write("open-\(mode).key", Self.raw, mode: mode))
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("every user"), "\(error)")
            #expect(error.message.contains("mode \(String(mode, radix: 8))") && error.message.contains("chmod 600"))
        }
        for mode: mode_t in [0o600, 0o400] {
            #expect(throws: Never.self) {
                try StoreSecretsKey.load(path: try write("ok-\(mode).key", Self.raw, mode: mode))
            }
        }
        // Group-readable in this process's own primary group: the daemon's nbgwd. Any other group,
        // such as the operators' nbgw, is refused.
        let ownGroup = try write("own-group.key", Self.raw, mode: 0o640)
        #expect(chown(ownGroup, uid_t.max, getegid()) == 0)
        #expect(throws: Never.self) { try StoreSecretsKey.load(path: ownGroup) }
        guard geteuid() == 0 else {
            Issue.record("run as root to give the key files other owners and groups")
            return
        }
        let otherGroup = try write("other-group.key", Self.raw, mode: 0o640)
        let operators: gid_t = getegid() == 65534 ? 65533 : 65534
        #expect(chown(otherGroup, uid_t.max, operators) == 0)
        let grouped = try refusal(otherGroup)
        #expect(grouped.message.contains("readable by group \(SecretFileAccess.groupName(operators))"), "\(grouped)")
        #expect(grouped.message.contains("only the daemon may read it"))
        let otherOwner = try write("other-owner.key", Self.raw, mode: 0o600)
        #expect(chown(otherOwner, 65534, gid_t.max) == 0)
        let owned = try refusal(otherOwner)
        #expect(owned.message.contains("belongs to user \(SecretFileAccess.userName(65534))"), "\(owned)")
    }

    /// A POSIX access ACL (`system.posix_acl_access`): `entries` as (tag, permissions, id).
    func setACL(_ path: String, _ entries: [(UInt16, UInt16, UInt32)]) throws {
        var bytes: [UInt8] = [2, 0, 0, 0]
        for (tag, permissions, id) in entries {
            bytes += [UInt8(tag & 0xFF), UInt8(tag >> 8), UInt8(permissions & 0xFF), UInt8(permissions >> 8)]
            bytes += [UInt8(id & 0xFF), UInt8(id >> 8 & 0xFF), UInt8(id >> 16 & 0xFF), UInt8(id >> 24)]
        }
        let result = bytes.withUnsafeBytes { setxattr(path, "system.posix_acl_access", $0.baseAddress, $0.count, 0) }
        #expect(result == 0, "setxattr: \(String(cString: strerror(errno)))")
    }

    @Test("An ACL is read: systemd's credential file (root's, ACL for the service's user) is the service's alone")
    func accessControlLists() throws {
        let none = UInt32.max
        // What LoadCredential= makes on a file system with ACLs: root's file, mode 0400, and an
        // entry that lets the service's user read it. The mode then shows the mask as group bits.
        let service: uid_t = 65534
        let credential = try write("credential.key", Self.raw, mode: 0o400)
        try setACL(
            credential,
            [(0x01, 4, none), (0x02, 4, service), (0x04, 0, none), (0x10, 4, none), (0x20, 0, none)]
        )
        let fd = open(credential, O_RDONLY)
        defer { close(fd) }
        var info = stat()
        #expect(fstat(fd, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o440, "the mask shows as the group's bits")
        #expect(SecretFileAccess.problem(descriptor: fd, info: info, user: service, group: 65533) == nil)
        // The same file read by another user: refused, naming the user the ACL lets in.
        let foreign = SecretFileAccess.problem(descriptor: fd, info: info, user: 65533, group: 65533)
        #expect(foreign?.contains("readable by user \(SecretFileAccess.userName(service)) through its ACL") == true)
        // A named group in the ACL is a group like any other.
        let grouped = try write("acl-group.key", Self.raw, mode: 0o600)
        try setACL(grouped, [(0x01, 6, none), (0x04, 0, none), (0x08, 4, 65534), (0x10, 4, none), (0x20, 0, none)])
        let error = try refusal(grouped)
        #expect(error.message.contains("readable by group \(SecretFileAccess.groupName(65534)) through its ACL"))
    }
}
