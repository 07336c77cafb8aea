import Ingest

extension IngestTLSError {
    /// The `[ingest]` key of the file the problem is in (`ingest.tls_certificate`, `ingest.tls_key`),
    /// for ``DaemonConfigurationError`` and its line in the file.
    public var configurationKey: String {
        file == .certificate ? "ingest.tls_certificate" : "ingest.tls_key"
    }
}
