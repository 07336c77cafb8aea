/// A port on which a module answered `AT`: the open transport and the speed that worked.
///
/// The connection owns the transport; hand it to an ``ATSession`` (which then owns it) or close it.
public struct ModemConnection: Sendable {
    public var port: String
    public var baudRate: Int
    public var transport: any ATTransport

    public init(port: String, baudRate: Int, transport: any ATTransport) {
        self.port = port
        self.baudRate = baudRate
        self.transport = transport
    }
}
