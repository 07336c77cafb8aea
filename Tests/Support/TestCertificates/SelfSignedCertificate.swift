import Foundation

/// A throwaway self-signed certificate for `localhost` and 127.0.0.1 (EC P-256, valid one day) and
/// its unencrypted private key (mode 600), made by `/usr/bin/openssl` in a fresh temporary
/// directory that goes away with the value. tools/setup.sh installs openssl.
public final class SelfSignedCertificate: Sendable {
    /// Why the absolute path: the tests must not pick up another openssl from `PATH`.
    public static let openssl = "/usr/bin/openssl"

    /// The directory holding both files; tests may put more files there.
    public let directory: String
    /// The certificate, PEM.
    public let certificatePath: String
    /// The private key, PEM, mode 600.
    public let keyPath: String

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public init() throws {
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("nbgw-tls-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        certificatePath = directory + "/cert.pem"
        keyPath = directory + "/key.pem"
        guard FileManager.default.isExecutableFile(atPath: Self.openssl) else {
            throw Failure(description: "\(Self.openssl) is missing: install openssl (tools/setup.sh)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.openssl)
        process.arguments = [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
            "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-keyout", keyPath, "-out", certificatePath,
        ]
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(
                description:
                    "openssl req exited \(process.terminationStatus): \(String(decoding: message, as: UTF8.self))"
            )
        }
        // openssl honours the umask; the server refuses a key other users can read.
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyPath)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// The certificate's PEM text (a client's trust root).
    public var certificatePEM: String {
        (try? String(contentsOfFile: certificatePath, encoding: .utf8)) ?? ""
    }

    /// Writes `contents` to `name` in ``directory`` with `mode`; returns the path.
    @discardableResult
    public func write(_ name: String, _ contents: String, mode: Int = 0o600) throws -> String {
        let path = directory + "/" + name
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }
}
