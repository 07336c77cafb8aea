/// ITU-T V.250 §6.1.3 Request identification information `I`.
///
/// Not a 27.007 command, but the one every module answers: Quectel prints manufacturer, model and
/// `Revision: ...` on three lines (`Quectel_Ltd` / `Quectel_BC66` / `Revision: BC66NBR01A10`), SIMCom
/// a short revision string. The probe falls back on it when `+CGMI`/`+CGMM` fail.
public struct ATI: ATCommand {
    /// What the three-line Quectel layout carries; missing lines are nil.
    public struct Identification: Sendable, Hashable {
        public var manufacturer: String?
        public var model: String?
        public var revision: String?

        public init(manufacturer: String?, model: String?, revision: String?) {
            self.manufacturer = manufacturer
            self.model = model
            self.revision = revision
        }
    }

    public init() {}

    public var command: String { "ATI" }

    public func parse(_ response: ATResponse) throws(ATResponseParseError) -> Identification {
        let lines = response.bareLines.filter(IdentificationText.isPrintableASCII)
        guard !lines.isEmpty else { throw ATResponseParseError(response, "expected identification lines") }
        var plain: [String] = []
        var revision: String?
        for line in lines {
            if line.hasPrefix("Revision:") {
                revision = line.dropFirst("Revision:".count).trimmingSpaces()
            } else {
                plain.append(line)
            }
        }
        return Identification(
            manufacturer: plain.count >= 2 ? plain[0] : nil,
            model: plain.count >= 2 ? plain[1] : plain.first,
            revision: revision
        )
    }
}
