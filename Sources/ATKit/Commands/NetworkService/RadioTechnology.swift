/// The radio technology a module is using, after the dialect has interpreted the raw `<AcT>`
/// (3GPP TS 27.007 §7.3) of `+COPS` and `+CEREG`.
///
/// The raw value is a trap: 27.007 says 8 is EC-GSM-IoT, but Quectel BG9x and u-blox SARA-R410M
/// report 8 for LTE Cat-M1, and on LPWA modules 7 (E-UTRAN) is Cat-M1 too. See
/// ``ModemDialect/technology(forAccessTechnology:)``.
public enum RadioTechnology: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// GSM / GPRS / EDGE (AcT 0, 1, 3).
    case gsm = "gsm"
    /// UTRAN (AcT 2, 4, 5, 6).
    case umts = "umts"
    /// E-UTRAN, broadband LTE (AcT 7, 10) on modules that are not LPWA-only.
    case lte = "lte"
    /// LTE Cat-M1 (eMTC, WB-S1 mode).
    case lteM = "lte-m"
    /// NB-IoT (AcT 9, E-UTRAN NB-S1).
    case nbIoT = "nb-iot"
    /// EC-GSM-IoT (AcT 8 per 27.007).
    case ecGSMIoT = "ec-gsm-iot"
    /// 5G NR (AcT 11, 12, 13).
    case nr = "nr"

    /// The 27.007 §7.3 reading of `<AcT>`, without vendor interpretation; nil for unknown values.
    public static func ts27007(accessTechnology act: Int) -> RadioTechnology? {
        switch act {
        case 0, 1, 3: .gsm
        case 2, 4, 5, 6: .umts
        case 7, 10: .lte
        case 8: .ecGSMIoT
        case 9: .nbIoT
        case 11, 12, 13: .nr
        default: nil
        }
    }

    public var description: String { rawValue }
}
