import ArgumentParser
import Cloud
import CloudCatalogue
import Foundation
import NBGWCore
import Provisioning

/// `--cloud` and `--cloud-wait`, for the commands a cloud takes part in (binds, registrations,
/// label resolution, sync).
struct CloudOptions: ParsableArguments {
    @Option(
        name: .long,
        help: """
            The cloud: `local` (embedded) or the URL of a remote cloud: an https:// URL for the \
            Tuya-style HTTP cloud, kii+https://HOST[/APP_ID] for Kii Thing-IF (default: $NBGW_CLOUD_URL, \
            else the daemon's [cloud] section, else local). Credentials come only from the environment \
            (NBGW_CLOUD_CLIENT_ID, NBGW_CLOUD_SECRET; NBGW_KII_APP_KEY, NBGW_KII_OWNER, \
            NBGW_KII_OWNER_TOKEN, …) or the daemon's config; see docs/cloud.md.
            """
    )
    var cloud: String?

    @Option(
        name: .customLong("cloud-wait"),
        help: """
            Seconds a bind or unbind waits for a remote cloud after committing locally; then it answers \
            `queued` and the outbox sends it (default 2, or $NBGW_CLOUD_WAIT).
            """
    )
    var cloudWaitSeconds: Double?

    /// The spec given (`--cloud`, else `$NBGW_CLOUD_URL`), nil when neither is set.
    var spec: String? {
        let value = cloud ?? ProcessInfo.processInfo.environment["NBGW_CLOUD_URL"]
        guard let value, !value.isEmpty else { return nil }
        return value
    }

    /// The cloud the command talks to: `--cloud` or `$NBGW_CLOUD_URL` when given, else the one the
    /// daemon on this gateway is configured with (its `[cloud]` section, credentials included), so
    /// that `nbgw bind` and `nbgw labels` on a gateway speak to the daemon's cloud with no flag;
    /// else the embedded cloud. A given URL that is the daemon's takes the section's settings too.
    func selection() throws(NBGWError) -> CloudSelection {
        let environment = ProcessInfo.processInfo.environment
        let configured = try DaemonSettings.read(environment: environment).configuration?.cloud
        guard let spec else { return configured?.selection ?? .local }
        var selection = try CloudCatalogue.selection(spec: spec)
        if let configured, configured.mode == selection.mode, configured.url == selection.url {
            selection.settings = configured.settings
        }
        return selection
    }

    /// How long binds wait for a remote cloud.
    func cloudWait() throws(NBGWError) -> Duration {
        let text = cloudWaitSeconds.map { String($0) } ?? ProcessInfo.processInfo.environment["NBGW_CLOUD_WAIT"]
        guard let text, !text.isEmpty else {
            let environment = ProcessInfo.processInfo.environment
            return (try? DaemonSettings.read(environment: environment).configuration?.cloud.syncWait) ?? nil
                ?? BindingService.defaultCloudWait
        }
        guard let seconds = Double(text), seconds.isFinite, (0...120).contains(seconds) else {
            throw NBGWError(
                .invalidArgument,
                "--cloud-wait / NBGW_CLOUD_WAIT \(text.escapedForDisplay()) must be a number of seconds from 0 to 120"
            )
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// Runs `body` with the selected cloud (``CloudCatalogue``); its connections are closed afterwards.
    func withCloud<R>(_ body: (any CloudService) async throws -> R) async throws -> R {
        try await CloudCatalogue.withCloud(
            try selection(),
            environment: ProcessInfo.processInfo.environment,
            body
        )
    }

    /// ``withCloud(_:)`` for commands that only make sense with a cloud that syncs (`nbgw cloud …`).
    func withSyncingCloud<R>(_ body: (any CloudService) async throws -> R) async throws -> R {
        try await withCloud { cloud in
            guard cloud.syncsBindings else {
                throw NBGWError(
                    .invalidArgument,
                    "no remote cloud configured: pass --cloud URL or set NBGW_CLOUD_URL (the embedded cloud is the "
                        + "store itself: nothing to sync)"
                )
            }
            return try await body(cloud)
        }
    }
}
