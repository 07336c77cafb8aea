/// 3GPP TS 27.007 §10.1.1 Define PDP context `+CGDCONT`.
///
/// On LTE the context with the lowest id is the default (attach) bearer: cid 1 on most modules,
/// cid 0 on nRF91, and BC95 has a single context. Which cid to use is a dialect property.
public enum CGDCONT {
    /// `AT+CGDCONT=<cid>,"<PDP_type>","<APN>"`.
    public struct Set: ATCommand {
        public var context: PDPContext

        /// - Throws: ``ATCommandArgumentError`` for an APN with quotes, commas or control characters
        ///   or longer than 100 characters (3GPP TS 23.003 §9.1), or a cid outside 0…24.
        public init(_ context: PDPContext) throws(ATCommandArgumentError) {
            guard (0...24).contains(context.cid) else {
                throw ATCommandArgumentError(command: "+CGDCONT", argument: "cid", reason: "must be 0…24")
            }
            let apn = context.apn ?? ""
            guard apn.count <= 100,
                apn.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && $0 != "\"" && $0 != "," })
            else {
                throw ATCommandArgumentError(
                    command: "+CGDCONT",
                    argument: "APN",
                    reason:
                        "\(apn.debugDescription): printable ASCII without spaces, quotes or commas, at most 100 characters"
                )
            }
            self.context = context
        }

        public var command: String {
            "AT+CGDCONT=\(context.cid),\"\(context.type.rawValue)\",\"\(context.apn ?? "")\""
        }

        public var timeout: Duration? { ATCommandTimeout.configuration }
    }

    /// `AT+CGDCONT?` → one `+CGDCONT: <cid>,"<type>","<apn>","<addr>",...` line per context.
    public struct Read: ATCommand {
        public init() {}

        public var command: String { "AT+CGDCONT?" }

        public func parse(_ response: ATResponse) throws(ATResponseParseError) -> [PDPContext] {
            var contexts: [PDPContext] = []
            for value in response.values(for: "+CGDCONT") {
                let parameters = ATParameterList(value)
                guard let cid = parameters.int(0), let type = parameters.string(1) else {
                    throw ATResponseParseError(response, "expected +CGDCONT: <cid>,\"<type>\",\"<apn>\"...")
                }
                let apn = parameters.string(2)
                contexts.append(
                    PDPContext(
                        cid: cid,
                        type: PDPContext.PDPType(rawValue: type.uppercased()) ?? .ip,
                        apn: apn?.isEmpty == true ? nil : apn,
                        address: parameters.string(3).flatMap { $0.isEmpty ? nil : $0 }
                    )
                )
            }
            return contexts
        }
    }
}
