/// An EMM cause (3GPP TS 24.301 §9.9.3.9, the values of Annex A), as `+CEREG` reports it in
/// `<reject_cause>` when `<cause_type>` is 0: why the network rejected an attach or tracking area
/// update, in words an operator can act on.
///
/// ```swift
/// EMMCause(15).name     // "no suitable cells in tracking area"
/// EMMCause(15).advice   // "…check the bands and radio technologies in the config, the antenna…"
/// EMMCause(200).name    // "EMM cause #200"
/// ```
public struct EMMCause: Sendable, Hashable, CustomStringConvertible {
    /// How long the rejection lasts, for what the gateway does next.
    public enum Persistence: Sendable, Hashable {
        /// The SIM or the device is refused: the module does not try again until it is power
        /// cycled or its SIM changes (24.301 §5.5.1.2.5: the USIM counts as invalid).
        case untilSIMChanges
        /// This network, area or cell is refused: the module searches elsewhere on its own.
        case thisLocation
        /// The network is in trouble: the module retries after its back-off timer (T3346, T3402).
        case temporary
        /// Not classified here.
        case unknown
    }

    /// The cause value.
    public var value: Int

    public init(_ value: Int) {
        self.value = value
    }

    /// The name 24.301 Annex A gives it (lower case), or "EMM cause #N".
    public var name: String { Self.table[value]?.name ?? "EMM cause #\(value)" }

    public var persistence: Persistence { Self.table[value]?.persistence ?? .unknown }

    /// What an operator should do.
    public var advice: String {
        switch persistence {
        case .untilSIMChanges:
            "the network refuses this SIM or device: check with the operator that the subscription is active and "
                + "provisioned for NB-IoT/LTE-M (and that the IMEI is allowed), then reset the module "
                + "(`nbgw modem reset`); it will not try again on its own"
        case .thisLocation:
            "the network refuses this operator, area or cell: check the SIM's roaming rights, the bands and radio "
                + "technologies in the config ([modem] rat, [modem.bands]) and the antenna; the module keeps "
                + "searching on its own"
        case .temporary:
            "the network is busy or failing: nothing to do here, the module retries after the network's back-off "
                + "timer"
        case .unknown:
            "look the cause up in 3GPP TS 24.301 Annex A; reset the module once the cause is dealt with"
        }
    }

    /// "#15 no suitable cells in tracking area".
    public var description: String { "#\(value) \(name)" }

    private static let table: [Int: (name: String, persistence: Persistence)] = [
        2: ("IMSI unknown in HSS", .untilSIMChanges),
        3: ("illegal UE", .untilSIMChanges),
        5: ("IMEI not accepted", .untilSIMChanges),
        6: ("illegal ME", .untilSIMChanges),
        7: ("EPS services not allowed", .untilSIMChanges),
        8: ("EPS services and non-EPS services not allowed", .untilSIMChanges),
        9: ("UE identity cannot be derived by the network", .temporary),
        10: ("implicitly detached", .temporary),
        11: ("PLMN not allowed", .thisLocation),
        12: ("tracking area not allowed", .thisLocation),
        13: ("roaming not allowed in this tracking area", .thisLocation),
        14: ("EPS services not allowed in this PLMN", .thisLocation),
        15: ("no suitable cells in tracking area", .thisLocation),
        16: ("MSC temporarily not reachable", .temporary),
        17: ("network failure", .temporary),
        18: ("CS domain not available", .temporary),
        19: ("ESM failure", .temporary),
        20: ("MAC failure", .temporary),
        21: ("synch failure", .temporary),
        22: ("congestion", .temporary),
        23: ("UE security capabilities mismatch", .temporary),
        24: ("security mode rejected, unspecified", .temporary),
        25: ("not authorized for this CSG", .thisLocation),
        26: ("non-EPS authentication unacceptable", .temporary),
        31: ("redirection to 5GCN required", .thisLocation),
        35: ("requested service option not authorized in this PLMN", .thisLocation),
        39: ("CS service temporarily not available", .temporary),
        40: ("no EPS bearer context activated", .temporary),
        42: ("severe network failure", .temporary),
        78: ("PLMN not allowed to operate at the present UE location", .thisLocation),
        95: ("semantically incorrect message", .temporary),
        96: ("invalid mandatory information", .temporary),
        97: ("message type non-existent or not implemented", .temporary),
        98: ("message type not compatible with the protocol state", .temporary),
        99: ("information element non-existent or not implemented", .temporary),
        100: ("conditional IE error", .temporary),
        101: ("message not compatible with the protocol state", .temporary),
        111: ("protocol error, unspecified", .temporary),
    ]
}
