import TuyaCloud

/// An error answer: the envelope `{success: false, code, msg}` (HTTP 200 like Tuya's OpenAPI), or
/// an HTTP error status for the injected transport-level faults.
struct EmulatorFailure: Error, Sendable, Equatable {
    var code: Int
    var msg: String
    var httpStatus: Int = 200

    init(_ code: Int, _ msg: String, httpStatus: Int = 200) {
        self.code = code
        self.msg = msg
        self.httpStatus = httpStatus
    }

    static func invalid(_ what: String) -> EmulatorFailure {
        EmulatorFailure(TuyaErrorCode.paramIllegal, "param is illegal: \(what)")
    }
}
