import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A control request that holds a key twice (`"op"` twice: which one runs?) is refused by the
/// running daemon, like any malformed request, and the connection serves the next one (security
/// review I6).
@Suite("the control socket refuses a request with a repeated key", .serialized, .timeLimit(.minutes(3)))
struct ControlSocketDuplicateKeyTests {
    /// A client speaking raw lines: what JSONEncoder would never write.
    final class RawClient {
        let fd: Int32
        private var buffer: [UInt8] = []

        init(path: String) throws {
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
            }
            let status = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            guard status == 0 else {
                close(fd)
                throw CocoaError(.fileReadUnknown, userInfo: ["errno": errno, "path": path])
            }
        }

        deinit { close(fd) }

        func send(_ line: String) {
            let bytes = Array((line + "\n").utf8)
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        }

        /// The next line the daemon sends, or nil after `timeout`.
        func line(timeout: Duration = .seconds(5)) -> String? {
            let deadline = ContinuousClock.now + timeout
            while true {
                if let end = buffer.firstIndex(of: 0x0A) {
                    let line = String(decoding: buffer[..<end], as: UTF8.self)
                    buffer.removeSubrange(...end)
                    return line
                }
                let left = ContinuousClock.now.duration(to: deadline)
                guard left > .zero else { return nil }
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, Int32(left.components.seconds * 1000 + 1)) > 0 else { return nil }
                var chunk = [UInt8](repeating: 0, count: 4096)
                let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                guard count > 0 else { return nil }
                buffer += chunk[..<count]
            }
        }
    }

    @Test("\"op\" given twice: INVALID_ARGUMENT naming the key, nothing done; the next request on the line is answered")
    func repeatedOp() async throws {
        let gateway = try await ControlSocketTests.Gateway(["bg95"])
        let rows = try await gateway.ready(1)
        let imei = try #require(rows.first?.imei)
        let client = try RawClient(path: gateway.socket)
        let hello = try #require(client.line(), "no greeting")
        #expect(hello.contains("\"hello\""), "\(hello)")

        client.send(#"{"v":1,"id":7,"op":"modems","op":"action","action":"reset","modem":"\#(imei)"}"#)
        let refusal = try #require(client.line(), "no answer to the repeated key")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(refusal.utf8)) as? [String: Any])
        let error = try #require(object["error"] as? [String: Any], "\(refusal)")
        #expect(error["code"] as? String == "INVALID_ARGUMENT", "\(refusal)")
        #expect((error["message"] as? String)?.contains("\"op\" twice") == true, "\(refusal)")

        client.send(#"{"v":1,"id":8,"op":"modems"}"#)
        let answer = try #require(client.line(), "the connection no longer answers")
        #expect(answer.contains(imei), "\(answer)")
        #expect(try gateway.audit().filter { $0.event.hasPrefix("modem_") }.isEmpty, "nothing was done")
        #expect(try await gateway.ready(1).first?.state == "ready")
    }
}
