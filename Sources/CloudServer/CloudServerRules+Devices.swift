import TuyaCloud

extension CloudServerRules {
    /// Nil when a transfer request is well-formed; else the refusal (1109) naming the field.
    public static func problem(in request: CloudAPI.TransferRequest) -> CloudServerFailure? {
        for (name, value) in [
            ("from_uid", request.fromUID), ("from_home", request.fromHome), ("to_uid", request.toUID),
            ("to_home", request.toHome),
        ] where !isName(value) {
            return .invalid("\(name) must be 1 to 64 printable characters")
        }
        return reasonProblem(request.reason)
    }

    /// Nil when a freeze request is well-formed; else the refusal (1109).
    public static func problem(in request: CloudAPI.FreezeRequest) -> CloudServerFailure? {
        reasonProblem(request.reason)
    }

    /// The longest reason an operator may give (kept in the operation log).
    public static let reasonLimit = 256

    static func reasonProblem(_ reason: String) -> CloudServerFailure? {
        guard (1...reasonLimit).contains(reason.unicodeScalars.count),
            reason.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F })
        else {
            return .invalid("reason must be 1 to \(reasonLimit) printable characters (it goes to the operation log)")
        }
        return nil
    }

    /// The ids of a bulk details call (`device_ids=a,b,…`): 1 to ``CloudAPI/deviceDetailsLimit``
    /// device ids, each named once, in the order given.
    public static func deviceIDs(_ text: String?) -> Result<[String], CloudServerFailure> {
        guard let text, !text.isEmpty else {
            return .failure(
                .invalid("device_ids must list 1 to \(CloudAPI.deviceDetailsLimit) device ids, comma-separated")
            )
        }
        var ids: [String] = []
        var seen = Set<String>()
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let id = String(part)
            guard isDeviceID(id) else {
                return .failure(.invalid("device_ids: \(id.escapedForDisplay()) is not 1 to 64 of A-Z a-z 0-9 _ . -"))
            }
            if seen.insert(id).inserted { ids.append(id) }
        }
        guard ids.count <= CloudAPI.deviceDetailsLimit else {
            return .failure(.invalid("device_ids lists \(ids.count) devices; at most \(CloudAPI.deviceDetailsLimit)"))
        }
        return .success(ids)
    }

    /// Whom a transfer found instead of the owner it named (3002): within a tenant, named.
    public static func transferFoundAnotherOwner(uid: String, home: String, gateway: String) -> CloudServerFailure {
        CloudServerFailure(
            TuyaErrorCode.deviceAlreadyBound,
            "device already bound: to account \(uid) in home \(home) through gateway \(gateway); not the from_uid "
                + "and from_home named: read its details and name its owner"
        )
    }

    /// A bind of a frozen device (3007).
    public static func frozen(reason: String?) -> CloudServerFailure {
        CloudServerFailure(
            TuyaErrorCode.deviceFrozen,
            "device frozen: \(reason ?? "by the operator"); it takes no binds until an operator unfreezes it"
        )
    }
}
