/// What a signed credential may do within its tenant. Gateways register, pair and bind; operators
/// (back-office scripts, the people who run the fleet) may also change devices through device
/// management: transfer, freeze, delete. Reads are open to both: a gateway already lists the
/// tenant's modules and bindings.
public enum CloudRole: String, Sendable, Hashable, CaseIterable {
    case gateway
    case `operator`

    /// Whether device-management changes (transfer, freeze, delete) are allowed.
    public var managesDevices: Bool { self == .operator }
}
