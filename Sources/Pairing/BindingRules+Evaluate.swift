import NBGWCore

extension BindingRules {
    /// What a bind that passed every rule does.
    public enum Decision: Sendable, Equatable {
        /// Create the binding (and use up the token, if one was given).
        case bind
        /// Already bound to this account and home: nothing to do.
        case unchanged
    }

    /// The seed's binding rules, in the order an operator fixes them: who (account exists, is an
    /// owner), where (home exists, belongs to the account), what (device registered, not bound
    /// elsewhere, product allowed), with what (token of this home, unused, unexpired).
    ///
    /// Pure: the facts come from the store, `nowMillis` from the injected wall clock.
    public static func evaluate(_ facts: BindFacts, nowMillis: Int64) throws(NBGWError) -> Decision {
        let device = facts.deviceID
        guard let account = facts.account else {
            throw NBGWError(
                .unknownAccount,
                "no account \(facts.accountName.escapedForDisplay()); create it with "
                    + "`nbgw accounts add NAME --role owner`"
            )
        }
        guard account.isOwner else {
            throw NBGWError(
                .guestNotAllowedStrongBind,
                "account \(facts.accountName.escapedForDisplay()) is a guest and cannot strong-bind device \(device); "
                    + "bind it with the home owner's account"
            )
        }
        guard let home = facts.home else {
            throw NBGWError(
                .unknownHome,
                "no home \(facts.homeName.escapedForDisplay()); list homes with `nbgw homes list`"
            )
        }
        guard home.ownerAccountID == account.id else {
            throw NBGWError(
                .homeAccessDenied,
                "home \(facts.homeName.escapedForDisplay()) does not belong to account "
                    + "\(facts.accountName.escapedForDisplay()); bind into one of its own homes"
            )
        }
        guard let record = facts.device else {
            throw NBGWError(
                .unknownDevice,
                "device \(device) is not registered; the module must register first "
                    + "(`nbgw devices register --imei IMEI`, or plug it into the gateway)"
            )
        }
        if let existing = facts.existing {
            if existing.accountID == account.id, existing.homeID == home.id {
                return .unchanged
            }
            throw NBGWError(
                .deviceAlreadyBound,
                existing.accountID == account.id
                    ? "device \(device) (IMEI \(record.imei)) is already bound to this account in home "
                        + "\(existing.homeName.escapedForDisplay()); `nbgw unbind \(device)` first to move it"
                    : "device \(device) (IMEI \(record.imei)) is already bound to another account; the owner must "
                        + "unbind it (`nbgw unbind \(device)`) before it can be bound again"
            )
        }
        if !home.allowedProducts.isEmpty, !home.allowedProducts.contains(record.productID ?? "") {
            throw NBGWError(
                .productNotAllowed,
                "device \(device) is product \(record.productID.map { $0.escapedForDisplay() } ?? "(none)"), "
                    + "not allowed in home \(facts.homeName.escapedForDisplay()) (allowed: "
                    + "\(home.allowedProducts.joined(separator: ", "))); bind it into another home"
            )
        }
        switch facts.token {
        case .notGiven:
            break
        case .unknown:
            throw NBGWError(
                .tokenInvalid,
                "pairing token not found; create one with `nbgw token create --home \(facts.homeName)`"
            )
        case .found(let homeID, let expiresAt, let used):
            guard homeID == home.id else {
                throw NBGWError(
                    .tokenInvalid,
                    "pairing token was issued for another home, not \(facts.homeName.escapedForDisplay()); "
                        + "create one with `nbgw token create --home \(facts.homeName)`"
                )
            }
            if used {
                throw NBGWError(
                    .tokenExpired,
                    "pairing token was already used by another bind (tokens die once used); create a new one "
                        + "with `nbgw token create --home \(facts.homeName)`"
                )
            }
            guard nowMillis <= expiresAt else {
                throw NBGWError(
                    .tokenExpired,
                    "pairing token expired (valid \(pairingTokenLifetime.components.seconds / 60) minutes); "
                        + "create a new one with `nbgw token create --home \(facts.homeName)`"
                )
            }
        }
        return .bind
    }
}
