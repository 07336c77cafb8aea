import Cloud
import NBGWCore

extension KiiCallError {
    /// The seam's view of this failure (docs/cloud.md, "Kii Thing-IF: failures"): cancelled;
    /// unavailable (no answer, 5xx, 429); misconfigured (the owner token or the URL: every other
    /// call would fail the same way, so a drain stops); refused for good (the thing's own token,
    /// a value Kii refuses, something Kii does not know).
    public var cloudFailure: CloudFailure {
        let attemptsText = "\(attempts) attempt\(attempts == 1 ? "" : "s")"
        switch kind {
        case .cancelled:
            return CloudFailure(
                .cancelled,
                NBGWError(
                    .timeout,
                    "\(operation) was cancelled before Kii answered; queued changes stay in the outbox"
                )
            )
        case .transport, .timedOut:
            return CloudFailure(
                .unavailable,
                NBGWError(
                    .timeout,
                    "Kii did not answer \(operation): \(kindDescription) at \(endpoint) after \(attemptsText); check "
                        + "the network and the Kii URL, then retry (queued changes stay in the outbox and are sent by "
                        + "`nbgw cloud sync` or the daemon)"
                )
            )
        case .configuration(let detail):
            return CloudFailure(.misconfigured, NBGWError(.invalidArgument, "\(operation): \(detail)"))
        case .malformedResponse(let detail):
            return CloudFailure(
                .misconfigured,
                NBGWError(
                    .invalidArgument,
                    "the answer to \(operation) at \(endpoint) is not Kii's (\(detail)); check that the URL is the "
                        + "Kii site of the app (kii+https://api-jp.kii.com/APP_ID, …)"
                )
            )
        case .httpStatus(let status, let code, _, _):
            if status == 429 || (500...599).contains(status) {
                return CloudFailure(
                    .unavailable,
                    NBGWError(
                        .timeout,
                        "Kii is unavailable for \(operation): \(kindDescription) at \(endpoint) after "
                            + "\(attemptsText); retry later (queued changes stay in the outbox)"
                    )
                )
            }
            return statusFailure(status, code: code)
        }
    }

    private func statusFailure(_ status: Int, code: String?) -> CloudFailure {
        let said = "\(kindDescription), \(endpoint)"
        switch (status, principal) {
        case (401, .owner):
            return CloudFailure(
                .misconfigured,
                NBGWError(
                    .invalidArgument,
                    "Kii refused the owner token during \(operation) (\(said)): it expired, was revoked, or belongs "
                        + "to another app; set a fresh access token of the owner user in "
                        + "\(KiiConfiguration.EnvironmentKey.ownerToken) or `owner_token`"
                )
            )
        case (403, .owner):
            return CloudFailure(
                .misconfigured,
                NBGWError(
                    .invalidArgument,
                    "Kii does not let the owner token do \(operation) (\(said)): the token must be the owner user's "
                        + "(or a member's of the owner group); check \(KiiConfiguration.EnvironmentKey.owner) and "
                        + "\(KiiConfiguration.EnvironmentKey.ownerToken)"
                )
            )
        case (403, .thing) where code?.uppercased().contains("PASSWORD") == true:
            // An app with requirePasswordForThingOwnership: nbgw sends the module's secret, the
            // thing's password from its onboarding, whenever the store holds it.
            return CloudFailure(
                .refused,
                NBGWError(
                    .invalidArgument,
                    "Kii wants the thing's password for \(operation) (\(said)) and the store holds none that "
                        + "matches (a module onboarded by another gateway or tool?); register the module here "
                        + "(`nbgw devices register --imei IMEI`), or add the owner in the Kii app, then unbind and bind "
                        + "it again"
                )
            )
        case (401, .thing), (403, .thing):
            return CloudFailure(
                .refused,
                NBGWError(
                    .invalidArgument,
                    "Kii refused the thing's own access token during \(operation) (\(said)); register the module "
                        + "again (`nbgw devices register --imei IMEI`) for a new token, then unbind and bind it again"
                )
            )
        case (404, _) where code == nil || code == "APP_NOT_FOUND":
            // Not one of Kii's "not found" answers about a thing or user: the URL or the app is wrong.
            return CloudFailure(
                .misconfigured,
                NBGWError(
                    .invalidArgument,
                    "Kii answered \(operation) with \(said): check the Kii URL (site) and the app id"
                )
            )
        case (404, _):
            return CloudFailure(
                .refused,
                NBGWError(.unknownDevice, "Kii does not know what \(operation) names (\(said))")
            )
        case (400, _), (409, _):
            return CloudFailure(
                .refused,
                NBGWError(.invalidArgument, "Kii refused a value in \(operation) (\(said)); check the fields sent")
            )
        default:
            return CloudFailure(
                .refused,
                NBGWError(
                    .internalError,
                    "Kii failed \(operation) with an unexpected \(said); retry, and report it if it persists"
                )
            )
        }
    }
}
