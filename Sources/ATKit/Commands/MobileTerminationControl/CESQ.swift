/// 3GPP TS 27.007 §8.69 Extended signal quality `+CESQ`:
/// `+CESQ: <rxlev>,<ber>,<rscp>,<ecno>,<rsrq>,<rsrp>`.
///
/// LTE-only modules report 99,99,255,255 for the GSM/UMTS fields; BC66 also fills `<rxlev>`.
public struct CESQ: ATCommand {
    public init() {}

    public var command: String { "AT+CESQ" }

    public func parse(_ response: ATResponse) throws(ATResponseParseError) -> ExtendedSignalQuality {
        let parameters = try response.parameters(for: "+CESQ")
        let values = (0..<6).map { parameters.int($0) }
        guard values.allSatisfy({ $0 != nil }) else {
            throw ATResponseParseError(response, "expected six integers: <rxlev>,<ber>,<rscp>,<ecno>,<rsrq>,<rsrp>")
        }
        return ExtendedSignalQuality(
            rxlev: values[0]!,
            ber: values[1]!,
            rscp: values[2]!,
            ecno: values[3]!,
            rsrq: values[4]!,
            rsrp: values[5]!
        )
    }
}
