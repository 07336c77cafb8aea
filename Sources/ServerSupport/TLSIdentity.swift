import Foundation
import NBGWCore
import NIOSSL

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A server's TLS identity: a certificate chain and its private key, read from PEM files and
/// checked when the service starts, so a wrong path, a wrong file, a key for another certificate or
/// a key other users can read stops the service (`nbgw ingest serve`, `nbgwd`, `nbgw-cloud serve`)
/// at once instead of failing every handshake later. Shared by the ingest API (issue 7: "TLS via
/// config when exposed") and the fleet cloud's nodes (issue 34), each with its own ``Owner``.
///
/// ```swift
/// let identity = try TLSIdentity.load(certificate: "/etc/nbgw/ingest.crt", key: "/etc/nbgw/ingest.key", owner: .ingest)
/// ```
///
/// The key material stays inside: `description` and the mirror show the paths only, so logging or
/// dumping the value never prints the key.
public struct TLSIdentity: Sendable {
    /// The oldest protocol version the server accepts. Why 1.2: TLS 1.0 and 1.1 are deprecated
    /// (RFC 8996), and every HTTP stack a scanner or phone app uses today speaks 1.2 or 1.3.
    public static let minimumVersion: TLSVersion = .tlsv12

    /// The largest PEM file read. Why 1 MiB: a chain of a dozen certificates is about 20 KiB; a
    /// bigger file is the wrong file.
    static let maximumFileBytes = 1 << 20

    /// The certificate chain file, as configured.
    public let certificatePath: String
    /// The private key file, as configured.
    public let keyPath: String
    /// When the first (leaf) certificate of the chain expires.
    public let notValidAfter: Date
    /// The chain, leaf first, as in the file.
    let certificateChain: [NIOSSLCertificate]
    let privateKey: NIOSSLPrivateKey

    /// Reads and checks the certificate chain and the private key.
    ///
    /// - Parameters:
    ///   - certificatePath: a PEM file with the certificate chain, leaf first.
    ///   - keyPath: a PEM file with the leaf's private key, unencrypted, that nobody but root, the
    ///     user running the service and that user's own primary group can read
    ///     (``NBGWCore/SecretFileAccess``): mode 600 or 400, or handed to the service by systemd's
    ///     `LoadCredential=`.
    ///   - owner: who serves with it, for the messages (which program, which unit, which guide).
    /// - Throws: ``TLSIdentityError`` naming the file: missing or unreadable, not PEM, no
    ///   certificate, no or an encrypted private key, a key another user owns or others can read
    ///   (every user, or a group other than the reader's own, such as the operators' `nbgw`), or a
    ///   key that does not match the certificate.
    public static func load(
        certificate certificatePath: String,
        key keyPath: String,
        owner: Owner
    ) throws(TLSIdentityError)
        -> TLSIdentity
    {
        let (certificateBytes, _) = try readFile(certificatePath, .certificate, owner)
        let (keyBytes, keyAccess) = try readFile(keyPath, .key, owner)
        // Contents before permissions: two swapped files are named as swapped, not as a
        // certificate "key" that others can read.
        let chain = try parseCertificates(certificateBytes, path: certificatePath)
        let key = try parsePrivateKey(keyBytes, path: keyPath)
        // Why a group other than the reader's own is refused too: the unit runs nbgwd in a group of
        // its own (nbgwd), so a key in the operators' group nbgw that the group may read is every
        // operator's (the documented root:nbgw 0640 of earlier versions); every user is never right.
        if let keyAccess {
            throw TLSIdentityError(
                file: .key,
                path: keyPath,
                message:
                    "TLS private key \(keyPath) \(keyAccess): chmod 600 \(keyPath) owned by the user running "
                    + "\(owner.program), or, for \(owner.service), root:root 0600 handed to it by LoadCredential= "
                    + "(\(owner.guide))"
            )
        }
        let tls = TLSIdentity(
            certificatePath: certificatePath,
            keyPath: keyPath,
            notValidAfter: Date(timeIntervalSince1970: TimeInterval(chain[0].notValidAfter)),
            certificateChain: chain,
            privateKey: key
        )
        // What the server does when it starts listening, done now: BoringSSL refuses a private key
        // whose public half is not the leaf certificate's.
        do {
            _ = try NIOSSLContext(configuration: tls.serverConfiguration)
        } catch {
            throw TLSIdentityError(
                file: .key,
                path: keyPath,
                message: "TLS private key \(keyPath) does not match the certificate \(certificatePath) (the first "
                    + "certificate in the file must be the one issued for this key): configure the key the certificate "
                    + "was made with, or make a new pair (\(owner.guide))"
            )
        }
        return tls
    }

    /// The server side's configuration: this chain and key, TLS 1.2 or newer, no client certificates.
    public var serverConfiguration: TLSConfiguration {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: certificateChain.map { .certificate($0) },
            privateKey: .privateKey(privateKey)
        )
        configuration.minimumTLSVersion = Self.minimumVersion
        return configuration
    }

    private static func noun(_ file: TLSIdentityError.File) -> String {
        file == .certificate ? "TLS certificate" : "TLS private key"
    }

    /// The file's bytes and, for the key, who else may read it (``NBGWCore/SecretFileAccess``, of the
    /// file read, not of a path that may change meanwhile).
    private static func readFile(
        _ path: String,
        _ file: TLSIdentityError.File,
        _ owner: Owner
    ) throws(TLSIdentityError) -> (
        bytes: [UInt8], access: String?
    ) {
        func failure(_ message: String) -> TLSIdentityError {
            TLSIdentityError(file: file, path: path, message: "\(noun(file)) \(path) \(message)")
        }
        // O_NONBLOCK: a FIFO configured by mistake must not hang the start; regular files ignore it.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            let code = errno
            switch code {
            case ENOENT, ENOTDIR:
                throw failure("does not exist: check the path, or make a certificate and key (\(owner.guide))")
            case EACCES:
                throw failure(
                    "cannot be read (permission denied): give the user running \(owner.program) read access (for the "
                        + "key: chmod 600 and that user as owner, or root:root 0600 handed to \(owner.service) by "
                        + "LoadCredential=)"
                )
            default:
                throw failure("cannot be opened: \(String(cString: strerror(code)))")
            }
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw failure("cannot be read: \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw failure("is not a regular file: give the path of a PEM file")
        }
        guard Int(info.st_size) <= maximumFileBytes else {
            throw failure("is larger than 1 MiB, so it is not a PEM \(file == .key ? "key" : "certificate chain")")
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer in
                read(descriptor, buffer.baseAddress! + filled, buffer.count - filled)
            }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw failure("cannot be read: \(String(cString: strerror(errno)))") }
            if count == 0 { break }
            filled += count
        }
        let access = file == .key ? SecretFileAccess.problem(descriptor: descriptor, info: info) : nil
        return (Array(bytes[..<filled]), access)
    }

    private static func parseCertificates(_ bytes: [UInt8], path: String) throws(TLSIdentityError) -> [NIOSSLCertificate]
    {
        func failure(_ message: String) -> TLSIdentityError {
            TLSIdentityError(file: .certificate, path: path, message: "TLS certificate \(path) \(message)")
        }
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.contains("-----BEGIN CERTIFICATE-----") || text.contains("-----BEGIN TRUSTED CERTIFICATE-----")
        else {
            let hint: String
            if text.contains("PRIVATE KEY-----") {
                hint = " (it holds a private key: are the certificate and the key swapped?)"
            } else if bytes.first == 0x30 {
                // A DER SEQUENCE: the right certificate in the wrong encoding.
                hint = " (it looks like DER: convert it with openssl x509 -inform der -in \(path) -out CERT.pem)"
            } else {
                hint = ""
            }
            throw failure(
                "is not a PEM certificate (no -----BEGIN CERTIFICATE----- line)\(hint): give the certificate chain "
                    + "in PEM, the server's certificate first"
            )
        }
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMBytes(bytes)
        } catch {
            throw failure(
                "has a certificate block that cannot be parsed (damaged or not X.509): replace it with the PEM file "
                    + "the certificate authority (or openssl) produced"
            )
        }
        guard !chain.isEmpty else {
            throw failure("holds no certificate: give the certificate chain in PEM, the server's certificate first")
        }
        return chain
    }

    private static func parsePrivateKey(_ bytes: [UInt8], path: String) throws(TLSIdentityError) -> NIOSSLPrivateKey {
        func failure(_ message: String) -> TLSIdentityError {
            TLSIdentityError(file: .key, path: path, message: "TLS private key \(path) \(message)")
        }
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.contains("PRIVATE KEY-----") else {
            let hint =
                text.contains("-----BEGIN CERTIFICATE-----")
                ? " (it holds a certificate: are the certificate and the key swapped?)" : ""
            throw failure(
                "is not a PEM private key (no -----BEGIN PRIVATE KEY----- line)\(hint): give the certificate's "
                    + "private key in PEM"
            )
        }
        // Checked before parsing: without a passphrase BoringSSL only says it failed.
        if text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----") || text.contains("Proc-Type: 4,ENCRYPTED") {
            throw failure(
                "is encrypted, and the service cannot ask for a passphrase at start: write it unencrypted "
                    + "(openssl pkey -in \(path) -out NEW.key), chmod 600 NEW.key and configure that file"
            )
        }
        do {
            return try NIOSSLPrivateKey(bytes: bytes, format: .pem)
        } catch {
            throw failure(
                "cannot be parsed (damaged, or not an RSA, EC or Ed25519 key): replace it with the key file "
                    + "openssl produced"
            )
        }
    }
}

extension TLSIdentity: CustomStringConvertible, CustomReflectable {
    /// The paths only, never key material.
    public var description: String {
        "TLS certificate \(certificatePath), key \(keyPath)"
    }

    /// The paths and the expiry only, so `dump` and debug output never show the key.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: ["certificatePath": certificatePath, "keyPath": keyPath, "notValidAfter": notValidAfter]
        )
    }
}
