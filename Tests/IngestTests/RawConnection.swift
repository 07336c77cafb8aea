import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP connection to the server on loopback, from a chosen loopback source address, for
/// what an HTTP client library hides: connections that send nothing, heads trickled byte by byte,
/// and whether the server closed the connection. Blocking calls run on a dispatch thread, never on
/// the test's cooperative threads.
final class RawConnection: @unchecked Sendable {
    let fd: Int32

    /// Connects to 127.0.0.1:`port` from `source` (any 127.x.y.z: Linux routes the whole /8 to lo).
    init(port: Int, source: String = "127.0.0.1") throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, source, &local.sin_addr)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, connected == 0 else {
            let code = errno
            close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
    }

    deinit { close(fd) }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// What the server sent until it closed the connection, or nil if it was still open after
    /// `timeout` (what arrived so far is dropped).
    func readUntilClosed(timeout: Duration) async -> String? {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { [self] in
                var received: [UInt8] = []
                let deadline = DispatchTime.now() + .milliseconds(Int(timeout.components.seconds * 1000))
                var buffer = [UInt8](repeating: 0, count: 4096)
                while DispatchTime.now() < deadline {
                    var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    let left = Int32(
                        max(1, (deadline.uptimeNanoseconds - DispatchTime.now().uptimeNanoseconds) / 1_000_000)
                    )
                    guard poll(&descriptor, 1, left) > 0 else { continue }
                    let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                    if count <= 0 {
                        continuation.resume(returning: String(decoding: received, as: UTF8.self))
                        return
                    }
                    received += buffer[0..<count]
                }
                continuation.resume(returning: nil)
            }
        }
    }
}
