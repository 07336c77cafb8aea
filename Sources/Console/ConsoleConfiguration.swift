import Foundation
import Labels
import NBGWCore
import Registry

/// How the console behaves beside the ingest API (docs/console.md).
public struct ConsoleConfiguration: Sendable {
    /// Cookies carry `Secure` and the `__Host-` prefix (always true when the server speaks HTTPS,
    /// when ``publicOrigin`` is `https`, and on a non-loopback listener: behind a TLS proxy).
    public var secureCookies: Bool
    /// The scheme the listener itself speaks (`http` or `https`): the expected `Origin` of a change
    /// when ``publicOrigin`` is not set.
    public var scheme: String
    /// The origin people's browsers reach the console at (`https://gw.example:8443`), when it is
    /// not the listener's own: a TLS-terminating proxy in front. A change whose `Origin` is not
    /// exactly this (scheme, host and port) is refused.
    public var publicOrigin: String?
    /// The daemon's control socket for modem actions; nil hides the actions.
    public var controlSocket: String?
    /// Where uploaded CSV files and their reports go (created 0700).
    public var batchDirectory: String
    /// The largest CSV accepted (`[console] batch_max_upload`). Why 64 MiB: about 500 000 rows of
    /// label URLs, a day's production.
    public var maxCSVBytes: Int
    /// Console batches at once, uploads included (`[console] batch_concurrency`); another is refused
    /// (429, with a time to retry). Why 1: a batch keeps a core busy and takes the store's write lock
    /// chunk after chunk; a second one on a 2-core gateway would halve both and hold up the gateway's
    /// own writes twice as often.
    public var maxRunningBatches: Int
    /// How long a batch's report, and an interrupted batch's upload, is kept after the job's last
    /// change (`[console] batch_retention`). Why 7 days: a week's production can be downloaded again.
    public var batchRetention: Duration
    /// The most the batch directory may hold (`[console] batch_quota`): an upload that would take it
    /// past this with the report it will write (counted as three times the upload) is refused. Why
    /// 1 GiB: four of the largest uploads with their reports, a small share of a gateway's storage.
    public var batchQuotaBytes: Int64
    /// Batches the batch page lists, newest first. Why 50: a week of a line's batches.
    public var listedBatches: Int
    /// The wall clock the batches' retention reads (the store stamps jobs with its own; tests give both
    /// the same manual clock).
    public var batchClock: any WallClock
    /// Rows per page of the lists.
    public var pageSize: Int
    /// The size and resolution of the labels the console renders (the daemon's `[labels]` size and
    /// dpi, as `nbgw labels` makes them): a module's label image and PDF, and sheets of them.
    public var labelStyle: LabelStyle
    /// The paper a sheet of labels is laid out on (`nbgw labels --paper`).
    public var labelPaper: LabelPaper
    /// The time a bind waits at most (the ingest API's `--timeout`).
    public var bindTimeout: Duration

    public init(
        secureCookies: Bool,
        scheme: String = "http",
        publicOrigin: String? = nil,
        controlSocket: String? = nil,
        batchDirectory: String,
        maxCSVBytes: Int = 64 * 1024 * 1024,
        pageSize: Int = 25,
        bindTimeout: Duration = .seconds(10),
        maxRunningBatches: Int = 1,
        batchRetention: Duration = .seconds(7 * 86_400),
        batchQuotaBytes: Int64 = 1 << 30,
        listedBatches: Int = 50,
        batchClock: any WallClock = SystemWallClock(),
        labelStyle: LabelStyle = LabelStyle(),
        labelPaper: LabelPaper = .a4
    ) {
        self.secureCookies = secureCookies
        self.scheme = scheme
        self.publicOrigin = publicOrigin.map(ConsoleConfiguration.normalizedOrigin)
        self.controlSocket = controlSocket
        self.batchDirectory = batchDirectory
        self.maxCSVBytes = maxCSVBytes
        self.pageSize = pageSize
        self.bindTimeout = bindTimeout
        self.maxRunningBatches = maxRunningBatches
        self.batchRetention = batchRetention
        self.batchQuotaBytes = batchQuotaBytes
        self.listedBatches = listedBatches
        self.batchClock = batchClock
        self.labelStyle = labelStyle
        self.labelPaper = labelPaper
    }

    /// `scheme://host[:port]` in lower case, without a default port (`HTTPS://GW:443` →
    /// `https://gw`) and without a trailing slash: how browsers write `Origin`.
    public static func normalizedOrigin(_ origin: String) -> String {
        var text = origin.lowercased()
        while text.hasSuffix("/") { text.removeLast() }
        if text.hasPrefix("https://"), text.hasSuffix(":443") { text.removeLast(4) }
        if text.hasPrefix("http://"), text.hasSuffix(":80") { text.removeLast(3) }
        return text
    }

    /// The default place for uploads: `console-batches/` beside the store.
    public static func defaultBatchDirectory(storePath: String) -> String {
        ((storePath as NSString).deletingLastPathComponent as NSString).appendingPathComponent("console-batches")
    }
}
