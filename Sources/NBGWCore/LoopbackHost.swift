import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Whether a listener's host reaches this machine only, decided on what the host is, never on
/// how it starts.
///
/// Why not a prefix test: `127.evil.example` starts like a loopback address but is a name any DNS
/// server may point anywhere, and it used to pass as loopback (security review F12). Only an IP
/// literal is certain: an IPv4 address in 127.0.0.0/8 as `inet_pton(3)` reads it (four decimal
/// parts, nothing else), the IPv6 loopback `::1` in any spelling (also IPv4-mapped,
/// `::ffff:127.0.0.1`), and the name `localhost`, which resolvers answer from /etc/hosts and
/// systemd-resolved always answers with a loopback address (RFC 6761 §6.3).
public enum LoopbackHost {
    /// True for 127.0.0.0/8, `::1` (brackets allowed) and `localhost`.
    public static func contains(_ host: String) -> Bool {
        var name = host
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name.lowercased() == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, name, &v4) == 1 {
            // s_addr is in network byte order: its first byte in memory is the address's first part.
            return withUnsafeBytes(of: &v4) { $0[0] } == 127
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, name, &v6) == 1 else { return false }
        return withUnsafeBytes(of: &v6) { raw in
            let loopback = raw.prefix(15).allSatisfy { $0 == 0 } && raw[15] == 1
            let mapped = raw.prefix(10).allSatisfy { $0 == 0 } && raw[10] == 0xFF && raw[11] == 0xFF && raw[12] == 127
            return loopback || mapped
        }
    }
}
