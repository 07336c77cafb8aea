/// The seed's NB-IoT pairing rules, in one place so every entry point (CLI, CSV, HTTP, daemon)
/// enforces the same numbers.
public enum BindingRules {
    /// A pairing token for a home is valid for 10 minutes (the seed's pairing-token lifetime).
    public static let pairingTokenLifetime: Duration = .seconds(600)

    /// Activation must finish within 120 s (the seed's `type.timeout = 120`).
    public static let defaultActivationTimeout: Duration = .seconds(120)

    /// The NB-IoT bind action a QR must resolve to (the seed's `device_net_conn_bind_nb`).
    public static let nbBindActionName = "device_net_conn_bind_nb"

    /// QR payloads longer than this are rejected before parsing. Real labels are well under
    /// 512 bytes; the cap bounds the work an untrusted payload can cause.
    public static let maximumPayloadBytes = 4096
}
