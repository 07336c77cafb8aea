/// The `+CME ERROR` codes of 3GPP TS 27.007 §9.2.1 (general) and §9.2.2 (GPRS/EPS), as a
/// two-way table between code and verbose text.
///
/// With `AT+CMEE=2` modems print the text instead of the code, and vendors differ in case
/// (`operation not allowed` on SIMCom, `Operation not allowed` on u-blox), so lookups by text
/// ignore case and spacing. Vendor-specific ranges (SIMCom 600–797, Quectel 5xx) are not listed.
public enum ATCMEErrorCatalogue {
    /// Code → 27.007 text.
    public static let entries: [Int: String] = [
        0: "phone failure",
        1: "no connection to phone",
        2: "phone-adaptor link reserved",
        3: "operation not allowed",
        4: "operation not supported",
        5: "PH-SIM PIN required",
        6: "PH-FSIM PIN required",
        7: "PH-FSIM PUK required",
        10: "SIM not inserted",
        11: "SIM PIN required",
        12: "SIM PUK required",
        13: "SIM failure",
        14: "SIM busy",
        15: "SIM wrong",
        16: "incorrect password",
        17: "SIM PIN2 required",
        18: "SIM PUK2 required",
        20: "memory full",
        21: "invalid index",
        22: "not found",
        23: "memory failure",
        24: "text string too long",
        25: "invalid characters in text string",
        26: "dial string too long",
        27: "invalid characters in dial string",
        30: "no network service",
        31: "network timeout",
        32: "network not allowed - emergency calls only",
        40: "network personalization PIN required",
        41: "network personalization PUK required",
        42: "network subset personalization PIN required",
        43: "network subset personalization PUK required",
        44: "service provider personalization PIN required",
        45: "service provider personalization PUK required",
        46: "corporate personalization PIN required",
        47: "corporate personalization PUK required",
        50: "incorrect parameters",
        51: "command implemented but currently disabled",
        52: "command aborted by user",
        53: "not attached to network due to MT functionality restrictions",
        54: "modem not allowed - MT restricted to emergency calls only",
        55: "operation not allowed because of MT functionality restrictions",
        100: "unknown",
        103: "illegal MS",
        106: "illegal ME",
        107: "GPRS services not allowed",
        111: "PLMN not allowed",
        112: "location area not allowed",
        113: "roaming not allowed in this location area",
        132: "service option not supported",
        133: "requested service option not subscribed",
        134: "service option temporarily out of order",
        148: "unspecified GPRS error",
        149: "PDP authentication failure",
        150: "invalid mobile class",
    ]

    private static let codesByText: [String: Int] = Dictionary(
        entries.map { (normalise($0.value), $0.key) },
        uniquingKeysWith: { first, _ in first }
    )

    /// The 27.007 text for `code`, or nil for vendor-specific codes.
    public static func text(for code: Int) -> String? {
        entries[code]
    }

    /// The 27.007 code whose text matches `text` (ignoring case, spaces and hyphens), or nil.
    public static func code(forText text: String) -> Int? {
        codesByText[normalise(text)]
    }

    private static func normalise(_ text: String) -> String {
        String(text.lowercased().filter { $0.isLetter || $0.isNumber })
    }
}
