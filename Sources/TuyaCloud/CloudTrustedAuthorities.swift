import Foundation
import NBGWCore
import NIOSSL

/// The certificate authorities a cloud's TLS certificate is checked against, from one PEM file
/// (`[cloud] ca_file`, `NBGW_CLOUD_CA_FILE`): the private CA of a self-hosted fleet cloud. Read
/// and parsed when the configuration is resolved, so a wrong path stops `nbgwd --check-config`
/// and the daemon's start, not every request later.
public struct CloudTrustedAuthorities: Sendable, Equatable {
    /// The file, as configured.
    public let path: String
    /// The certificates in it.
    public let certificates: [NIOSSLCertificate]

    /// The largest file read. Why 1 MiB: Debian's whole system bundle is about 220 KiB.
    static let maximumFileBytes = 1 << 20

    /// Reads and parses a PEM file of one or more CA certificates.
    ///
    /// - Throws: `INVALID_ARGUMENT` naming the file: missing, unreadable, too large, not PEM, or
    ///   a certificate that cannot be parsed.
    public static func load(_ path: String) throws(NBGWError) -> CloudTrustedAuthorities {
        func failure(_ message: String) -> NBGWError {
            NBGWError(.invalidArgument, "cloud CA file \(path.escapedForDisplay()) \(message)")
        }
        let bytes: Data
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            guard (attributes[.type] as? FileAttributeType) == .typeRegular else {
                throw failure("is not a regular file: give the PEM file of the CA that issued the cloud's certificate")
            }
            if let size = attributes[.size] as? Int, size > maximumFileBytes {
                throw failure("is larger than 1 MiB, so it is not a CA certificate file")
            }
            bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch let error as NBGWError {
            throw error
        } catch {
            throw failure(
                "cannot be read (\((error as NSError).localizedDescription)): check ca_file / NBGW_CLOUD_CA_FILE"
            )
        }
        guard String(decoding: bytes, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") else {
            throw failure("holds no PEM certificate (no -----BEGIN CERTIFICATE----- line): give the CA certificate in PEM")
        }
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMBytes(Array(bytes))
        } catch {
            throw failure("has a certificate that cannot be parsed: replace it with the CA's PEM file")
        }
        guard !certificates.isEmpty else { throw failure("holds no certificate: give the CA certificate in PEM") }
        return CloudTrustedAuthorities(path: path, certificates: certificates)
    }
}
