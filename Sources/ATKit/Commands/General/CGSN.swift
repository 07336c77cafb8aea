/// 3GPP TS 27.007 §5.4 Request product serial number identification `+CGSN`.
///
/// `AT+CGSN` answers the IMEI as bare text on most modules, but **Hi21xx firmware (BC95 family)
/// answers the product serial number there**; `AT+CGSN=1` (`<snt>` = 1, IMEI) answers
/// `+CGSN: <imei>` everywhere it is supported (nRF91 quotes it, BC95 omits the space). Which form
/// to use is a dialect property (``ModemDialect/imeiQuery``).
///
/// The response is the digits as reported; checking the Luhn digit is the caller's business.
public struct CGSN: ATCommand {
    /// Which identity `<snt>` asks for.
    public enum Form: Sendable, Hashable {
        /// `AT+CGSN`: the serial number, which is the IMEI on all but Hi21xx firmware.
        case bare
        /// `AT+CGSN=1`: the IMEI, as `+CGSN: <imei>`.
        case imei
    }

    public var form: Form

    public init(_ form: Form = .bare) {
        self.form = form
    }

    public var command: String { form == .imei ? "AT+CGSN=1" : "AT+CGSN" }

    public func parse(_ response: ATResponse) throws(ATResponseParseError) -> String {
        try IdentificationText.first(response, prefix: "+CGSN")
    }
}
