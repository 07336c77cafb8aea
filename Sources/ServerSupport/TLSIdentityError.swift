/// Why a server's TLS certificate or key cannot be used (``TLSIdentity``). The message names the file, says
/// what is wrong and what to do; it never contains the files' contents.
public struct TLSIdentityError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Which of the two files the problem is in.
    public enum File: String, Sendable {
        /// The certificate chain (`--tls-certificate`, `[ingest] tls_certificate`, `[tls] certificate`).
        case certificate
        /// The private key (`--tls-key`, `[ingest] tls_key`, `[tls] key`).
        case key
    }

    /// The file the problem is in (a key that does not match its certificate is the key's problem).
    public var file: File
    /// That file's path, as configured.
    public var path: String
    /// What is wrong and what to do, naming the path.
    public var message: String

    public init(file: File, path: String, message: String) {
        self.file = file
        self.path = path
        self.message = message
    }

    public var description: String { message }
}
