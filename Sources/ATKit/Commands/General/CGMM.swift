/// 3GPP TS 27.007 §5.2 Request model identification `+CGMM`.
///
/// Bare text: `BC95HB-02-STD_850`, `Quectel_BC66`, `BG95-M3`, `SIMCOM_SIM7080G`,
/// `SARA-R410M-02B`, `nRF9160-SICA`.
public struct CGMM: ATCommand {
    public init() {}

    public var command: String { "AT+CGMM" }

    public func parse(_ response: ATResponse) throws(ATResponseParseError) -> String {
        try IdentificationText.first(response, prefix: "+CGMM")
    }
}
