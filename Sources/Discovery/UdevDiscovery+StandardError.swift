import Logging

extension UdevDiscovery {
    /// Discovery for tools and tests that have no logging set up: its errors (a monitor that cannot be
    /// opened, a failed enumeration) go to standard error, nothing else is logged. Daemons pass their
    /// own logger to ``init(logger:)``.
    public convenience init() throws {
        var logger = Logger(label: "nbgw.discovery") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .error
        try self.init(logger: logger)
    }
}
