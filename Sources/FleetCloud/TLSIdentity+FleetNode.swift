import ServerSupport

extension TLSIdentity.Owner {
    /// A fleet cloud node: `nbgw-cloud serve`.
    public static let fleetNode = TLSIdentity.Owner(
        program: "nbgw-cloud",
        service: "nbgw-cloud",
        guide: "docs/fleet.md, \"TLS\""
    )
}
