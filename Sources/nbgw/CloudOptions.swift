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
            The cloud: `local` (embedded, the default) or the URL of a remote cloud: an https:// URL for \
            the Tuya-style HTTP cloud, kii+https://HOST[/APP_ID] for Kii Thing-IF (default: \
            $NBGW_CLOUD_URL). Credentials come only from the environment (NBGW_CLOUD_CLIENT_ID, \
            NBGW_CLOUD_SECRET; NBGW_KII_APP_KEY, NBGW_KII_OWNER, NBGW_KII_OWNER_TOKEN, …); see docs/cloud.md.
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

    /// The spec given (`--cloud`, else `$NBGW_CLOUD_URL`), `local` when neither is set.
    var spec: String {
        let value = cloud ?? ProcessInfo.processInfo.environment["NBGW_CLOUD_URL"]
        guard let value, !value.isEmpty else { return EmbeddedCloud.mode }
        return value
    }

    /// How long binds wait for a remote cloud.
    func cloudWait() throws(NBGWError) -> Duration {
        let text = cloudWaitSeconds.map { String($0) } ?? ProcessInfo.processInfo.environment["NBGW_CLOUD_WAIT"]
        guard let text, !text.isEmpty else { return BindingService.defaultCloudWait }
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
            try CloudCatalogue.selection(spec: spec),
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
