/// A final result code: the line that ends a command's response (3GPP TS 27.007 §4.2 / §9,
/// ITU-T V.250).
///
/// Besides the V.250 codes, this covers the 27.007 §9.2 `+CME ERROR`, the 27.005 §3.2.5
/// `+CMS ERROR`, the China Mobile OneNET `+CIS ERROR`, and the `SEND OK` / `SEND FAIL` that
/// end Quectel and SIMCom socket sends.
public enum ATFinalResult: Sendable, Hashable, CustomStringConvertible {
    /// `OK`.
    case ok
    /// `ERROR`: unknown command, syntax error, or any failure while `AT+CMEE=0`.
    case error
    /// `+CME ERROR: <err>` (3GPP TS 27.007 §9.2). With `AT+CMEE=1` the code is numeric; with
    /// `AT+CMEE=2` it is text (``text``), and `code` is filled from ``ATCMEErrorCatalogue`` when
    /// the text is a known 27.007 one.
    case cmeError(code: Int?, text: String?)
    /// `+CMS ERROR: <err>` (3GPP TS 27.005 §3.2.5), for SMS commands.
    case cmsError(code: Int?, text: String?)
    /// `+CIS ERROR: <err>` (China Mobile OneNET LwM2M firmware: 601 syntax, 602 not logged in, ...).
    case cisError(code: Int?, text: String?)
    /// `NO CARRIER`: a connection could not be set up or was lost.
    case noCarrier
    /// `BUSY`.
    case busy
    /// `NO ANSWER`.
    case noAnswer
    /// `NO DIALTONE`.
    case noDialtone
    /// `CONNECT [<text>]`: the port switched to data mode (or, for upload commands, wants data).
    case connect(String?)
    /// `SEND OK`: Quectel `+QISEND` / SIMCom `+CIPSEND` data accepted.
    case sendOK
    /// `SEND FAIL`.
    case sendFail

    /// Whether the command succeeded: `OK`, `CONNECT` and `SEND OK`.
    public var isSuccess: Bool {
        switch self {
        case .ok, .connect, .sendOK: true
        default: false
        }
    }

    /// The line as a modem would print it (verbose text preferred for `+CME ERROR`).
    public var description: String {
        switch self {
        case .ok: "OK"
        case .error: "ERROR"
        case .cmeError(let code, let text): Self.render("+CME ERROR", code: code, text: text)
        case .cmsError(let code, let text): Self.render("+CMS ERROR", code: code, text: text)
        case .cisError(let code, let text): Self.render("+CIS ERROR", code: code, text: text)
        case .noCarrier: "NO CARRIER"
        case .busy: "BUSY"
        case .noAnswer: "NO ANSWER"
        case .noDialtone: "NO DIALTONE"
        case .connect(let text): text.map { "CONNECT \($0)" } ?? "CONNECT"
        case .sendOK: "SEND OK"
        case .sendFail: "SEND FAIL"
        }
    }

    private static func render(_ name: String, code: Int?, text: String?) -> String {
        switch (code, text) {
        case (let code?, let text?): "\(name): \(text) (\(code))"
        case (let code?, nil):
            if name == "+CME ERROR", let known = ATCMEErrorCatalogue.text(for: code) {
                "\(name): \(code) (\(known))"
            } else {
                "\(name): \(code)"
            }
        case (nil, let text?): "\(name): \(text)"
        case (nil, nil): name
        }
    }
}
