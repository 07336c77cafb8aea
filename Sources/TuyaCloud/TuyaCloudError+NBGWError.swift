import Cloud
import NBGWCore

extension TuyaCloudError {
    /// The operator-facing error: a stable code and a message saying what failed, where, and what
    /// to do next.
    ///
    /// nbgw's error catalogue has no cloud-specific codes yet, so an unreachable or overloaded
    /// cloud reports `TIMEOUT` ("did not finish; retry"), and wrong credentials, clock skew or a
    /// wrong data center report `INVALID_ARGUMENT` (a configuration value broke its rule).
    public var nbgwError: NBGWError {
        switch kind {
        case .transport, .timedOut:
            return NBGWError(
                .timeout,
                "the cloud did not answer \(operation): \(kindDescription) at \(endpoint) after \(attemptsText); "
                    + "check the network and the cloud URL, then retry (queued changes stay in the outbox and are "
                    + "sent by `nbgw cloud sync` or the daemon)"
            )
        case .httpStatus(let status, _):
            if status == 429 || (500...599).contains(status) {
                return NBGWError(
                    .timeout,
                    "the cloud is unavailable for \(operation): HTTP \(status) at \(endpoint) after \(attemptsText); "
                        + "retry later (queued changes stay in the outbox)"
                )
            }
            return NBGWError(
                .invalidArgument,
                "the cloud answered HTTP \(status) without an OpenAPI envelope for \(operation) at \(endpoint); "
                    + "check that the cloud URL is the OpenAPI endpoint (e.g. https://openapi.tuyaeu.com or the "
                    + "emulator's http://127.0.0.1:PORT), not a web page or a proxy"
            )
        case .malformedResponse(let detail):
            return NBGWError(
                .internalError,
                "the cloud's answer to \(operation) at \(endpoint) is not what nbgw's cloud profile specifies "
                    + "(\(detail)); check that the cloud URL points at an nbgw-profile cloud (docs/cloud-api.yaml)"
            )
        case .configuration(let detail):
            return NBGWError(.invalidArgument, "\(operation): \(detail)")
        case .cancelled:
            return NBGWError(
                .timeout,
                "\(operation) was cancelled (shutting down) before the cloud answered; queued changes stay in the "
                    + "outbox"
            )
        case .api(let code, let message):
            return apiError(code: code, message: message)
        }
    }

    private var attemptsText: String { "\(attempts) attempt\(attempts == 1 ? "" : "s")" }

    private func apiError(code: Int, message: String) -> NBGWError {
        let said = "cloud code \(code) (\(TuyaErrorCode.name(code) ?? "unknown")): \(message.escapedSnippet)"
        switch code {
        case TuyaErrorCode.requestTimeInvalid:
            return NBGWError(
                .invalidArgument,
                "the cloud rejected the request time during \(operation) (\(said), \(endpoint)): this host's clock "
                    + "is skewed from the cloud's, or the cloud URL is the wrong data center for this project. Sync "
                    + "the clock (`timedatectl set-ntp true` or chrony) and check the cloud URL's region "
                    + "(openapi.tuyaeu.com, openapi.tuyaus.com, openapi.tuyacn.com, openapi.tuyain.com, …)"
            )
        case TuyaErrorCode.signInvalid:
            return NBGWError(
                .invalidArgument,
                "the cloud rejected the request signature during \(operation) (\(said), \(endpoint)): the secret does "
                    + "not belong to the client id, or something between here and the cloud rewrote the request. Copy "
                    + "the Access Secret again into NBGW_CLOUD_SECRET or the config file"
            )
        case TuyaErrorCode.secretInvalid, TuyaErrorCode.clientIDInvalid:
            return NBGWError(
                .invalidArgument,
                "the cloud rejected the credentials during \(operation) (\(said), \(endpoint)): check "
                    + "NBGW_CLOUD_CLIENT_ID and NBGW_CLOUD_SECRET (or the config file), and that the cloud URL is the "
                    + "data center the project lives in"
            )
        case TuyaErrorCode.accessTokenNull, TuyaErrorCode.tokenExpired, TuyaErrorCode.tokenInvalid,
            TuyaErrorCode.tokenStatusInvalid, TuyaErrorCode.grantTypeInvalid:
            return NBGWError(
                .invalidArgument,
                "the cloud kept rejecting the access token during \(operation) (\(said), \(endpoint)) even after "
                    + "nbgw fetched a new one; check the credentials and the host clock, then retry"
            )
        case TuyaErrorCode.permissionDenied, TuyaErrorCode.uriPathInvalid, TuyaErrorCode.missingHeader:
            return NBGWError(
                .invalidArgument,
                "the cloud refused \(operation) (\(said), \(endpoint)): the project is not authorised for this API, "
                    + "or the cloud URL does not speak nbgw's cloud profile (docs/cloud-api.yaml)"
            )
        case let retryable where RetryPolicy.retryableCodes.contains(retryable):
            return NBGWError(
                .timeout,
                "the cloud was too busy for \(operation) (\(said), \(endpoint)) after \(attemptsText); retry later "
                    + "(queued changes stay in the outbox)"
            )
        case TuyaErrorCode.deviceNotExist:
            return NBGWError(
                .unknownDevice,
                "the cloud does not know the device in \(operation) (\(said)); register the module with this cloud "
                    + "first (`nbgw devices register --imei IMEI`)"
            )
        case TuyaErrorCode.qrNotRecognized:
            return NBGWError(
                .qrProtocolNotRecognized,
                "the cloud does not recognise the QR in \(operation) (\(said)); scan the module's pairing label"
            )
        case TuyaErrorCode.deviceAlreadyBound:
            // A fleet cloud names the owner within a tenant ("device already bound: to account A
            // through gateway G; strong binding, …"): said once and first, not nested in a quote
            // that repeats the advice.
            if let owner = TuyaCloudError.namedOwner(message) {
                return NBGWError(
                    .deviceAlreadyBound,
                    "strong binding: the cloud says the device is bound \(owner.escapedSnippet) (cloud code 3002); "
                        + "that owner must unbind it first"
                )
            }
            return NBGWError(
                .deviceAlreadyBound,
                "strong binding: the cloud says the device is bound to another account or home (\(said)); its owner "
                    + "must unbind it first"
            )
        case TuyaErrorCode.pairingTokenExpired:
            return NBGWError(
                .tokenExpired,
                "the cloud's pairing token is older than 10 minutes or already used (\(said)); create a new one"
            )
        case TuyaErrorCode.pairingTokenInvalid:
            return NBGWError(
                .tokenInvalid,
                "the cloud does not know this pairing token for this home (\(said)); create one for the home"
            )
        case TuyaErrorCode.deviceNotBound:
            return NBGWError(.notBound, "the cloud says the device is not bound (\(said)); nothing to unbind")
        case TuyaErrorCode.homeAccessDenied:
            return NBGWError(
                .homeAccessDenied,
                "the cloud says the home belongs to another account (\(said)); use the home owner's account"
            )
        case TuyaErrorCode.deviceFrozen:
            return NBGWError(
                .permissionDenied,
                "the cloud says the device is frozen by the fleet's operator (\(said)); it takes no binds until they "
                    + "unfreeze it (`POST /v1.0/iot-03/devices/{device_id}/freeze`)"
            )
        case TuyaErrorCode.paramEmpty...TuyaErrorCode.paramIllegal, TuyaErrorCode.repeatedOperation,
            TuyaErrorCode.dataNotExist:
            return NBGWError(
                .invalidArgument,
                "the cloud refused a value in \(operation) (\(said), \(endpoint)); check the identity fields and "
                    + "names sent"
            )
        default:
            return NBGWError(
                .internalError,
                "the cloud failed \(operation) with an unexpected \(said) at \(endpoint); retry, and report it if it "
                    + "persists"
            )
        }
    }

    /// "to account A through gateway G" from a conflict that names the owner, nil otherwise.
    static func namedOwner(_ message: String) -> String? {
        let prefix = "device already bound: "
        guard message.hasPrefix(prefix) else { return nil }
        let rest = message.dropFirst(prefix.count)
        guard rest.hasPrefix("to account ") else { return nil }
        return String(rest.prefix { $0 != ";" })
    }
}
