/// A PDP context definition (3GPP TS 27.007 §10.1.1).
public struct PDPContext: Sendable, Hashable {
    /// `<PDP_type>`.
    public enum PDPType: String, Sendable, Hashable, CaseIterable {
        case ip = "IP"
        case ipv6 = "IPV6"
        case ipv4v6 = "IPV4V6"
        /// Non-IP data delivery (NB-IoT NIDD).
        case nonIP = "NONIP"
    }

    /// `<cid>`.
    public var cid: Int
    public var type: PDPType
    /// `<APN>`; nil or empty lets the network choose.
    public var apn: String?
    /// `<PDP_addr>` as reported (read only).
    public var address: String?

    public init(cid: Int, type: PDPType = .ip, apn: String?, address: String? = nil) {
        self.cid = cid
        self.type = type
        self.apn = apn
        self.address = address
    }
}
