// Fuzz/ only (not a symlink): the Console module is not built in the fuzz package.
//
// Why: the daemon's config reader (`DaemonConfiguration+Console.swift`, compiled as shipped) hands
// its `[console]` settings to the console's configuration; the console itself needs Hummingbird,
// Mustache and the store, which this package does not build under AddressSanitizer. So only the
// four fields the settings set are declared here, with the shipped names and types; the fuzz
// target reads and renders the settings and never builds a console.
public struct ConsoleConfiguration {
    public var maxCSVBytes: Int
    public var maxRunningBatches: Int
    public var batchRetention: Duration
    public var batchQuotaBytes: Int64
}
