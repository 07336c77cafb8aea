extension RegistrationStatus {
    /// Why a registration line could not be parsed.
    public struct ParseFailure: Error, Sendable, Hashable, CustomStringConvertible {
        public var text: String
        public var reason: String

        public var description: String { "cannot parse registration report \(text.debugDescription): \(reason)" }
    }

    /// Parses the parameters of a read response (after `+CEREG:`), which start with `<n>`.
    public init(readParameters text: String, domain: Domain = .eps) throws(ParseFailure) {
        let list = ATParameterList(text)
        guard let level = list.int(0) else {
            throw ParseFailure(text: text, reason: "the read response starts with <n>, an integer")
        }
        try self.init(fields: Array(list.fields.dropFirst()), text: text, domain: domain)
        reportingLevel = level
    }

    /// Parses the parameters of a URC (after `+CEREG:`), which start with `<stat>`.
    public init(urcParameters text: String, domain: Domain = .eps) throws(ParseFailure) {
        try self.init(fields: ATParameterList(text).fields, text: text, domain: domain)
    }

    /// Parses an unsolicited `+CEREG`/`+CGREG`/`+CREG` line; nil for other URCs.
    public init?(urc: ATURC) {
        guard let domain = Domain(rawValue: urc.name),
            let status = try? RegistrationStatus(urcParameters: urc.parameters, domain: domain)
        else { return nil }
        self = status
    }

    private init(fields: [ATParameterList.Field], text: String, domain: Domain) throws(ParseFailure) {
        let list = ATParameterListView(fields)
        guard let stat = list.int(0), (0...99).contains(stat) else {
            throw ParseFailure(text: text, reason: "<stat> must be an integer")
        }
        self.init(domain: domain, stat: stat)
        areaCode = Self.hex(list.string(1), unknown: ["FFFE", "FFFF"])
        cellID = Self.hex(list.string(2), unknown: ["FFFFFFFF"])
        accessTechnology = list.int(3)
        var index = 4
        if domain == .gprs {
            routingAreaCode = Self.hex(list.string(4), unknown: ["FF"])
            index = 5
        }
        // The cause pair, unless the module skipped it and went straight to the timers (27.007
        // writes the absent pair as ",," with n=4, but a bit string here can only be a timer).
        if !Self.isBitString(list[index]) {
            causeType = list.int(index)
            rejectCause = list.int(index + 1)
            index += 2
        }
        if domain != .circuitSwitched {
            activeTime = Self.bits(list[index])
            periodicUpdate = Self.bits(list[index + 1])
        }
    }

    private static func hex(_ text: String?, unknown: Set<String>) -> String? {
        guard let text, !text.isEmpty, text.allSatisfy(\.isHexDigit) else { return nil }
        return unknown.contains(text.uppercased()) ? nil : text
    }

    private static func isBitString(_ field: ATParameterList.Field) -> Bool {
        bits(field) != nil
    }

    private static func bits(_ field: ATParameterList.Field) -> String? {
        guard let text = field.text, text.count == 8, text.allSatisfy({ $0 == "0" || $0 == "1" }) else { return nil }
        return text
    }
}

/// Positional access to fields already split by ``ATParameterList``.
private struct ATParameterListView {
    let fields: [ATParameterList.Field]

    init(_ fields: [ATParameterList.Field]) {
        self.fields = fields
    }

    subscript(index: Int) -> ATParameterList.Field {
        index >= 0 && index < fields.count ? fields[index] : .empty
    }

    func int(_ index: Int) -> Int? { self[index].text.flatMap { Int($0) } }

    func string(_ index: Int) -> String? { self[index].text }
}
