import Logging

/// A swift-log handler writing to journald with each record's priority and its metadata as
/// journal fields (``JournalEntry``), through a ``JournalSink``. `nbgwd` bootstraps logging with
/// it when stderr is journald's stream, so that `journalctl -p warning -u nbgwd` shows the
/// failures and `journalctl -u nbgwd IMEI=…` one module's records; elsewhere it logs plain lines
/// (swift-log's `StreamLogHandler`).
///
/// ```swift
/// if let sink = JournalSink.detect(environment: ProcessInfo.processInfo.environment) {
///     LoggingSystem.bootstrap { JournalLogHandler(label: $0, sink: sink) }
/// }
/// ```
public struct JournalLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    public let label: String
    /// `SYSLOG_IDENTIFIER` of every record.
    public let identifier: String
    let sink: JournalSink

    public init(
        label: String,
        sink: JournalSink,
        identifier: String = "nbgwd",
        metadataProvider: Logger.MetadataProvider? = LoggingSystem.metadataProvider
    ) {
        self.label = label
        self.sink = sink
        self.identifier = identifier
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        // The precedence of swift-log's own handlers: the handler's metadata, then the provider's,
        // then the call's.
        var merged = metadata
        if let provided = metadataProvider?.get(), !provided.isEmpty {
            merged.merge(provided) { _, new in new }
        }
        if let explicit = event.metadata, !explicit.isEmpty {
            merged.merge(explicit) { _, new in new }
        }
        if let error = event.error {
            merged["error.message"] = "\(error)"
            merged["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        sink.write(
            JournalEntry(
                level: event.level,
                message: event.message.description,
                metadata: merged,
                label: label,
                identifier: identifier,
                file: event.file,
                function: event.function,
                line: event.line
            )
        )
    }
}
