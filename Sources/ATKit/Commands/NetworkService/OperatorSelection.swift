/// The answer of `AT+COPS?` (3GPP TS 27.007 §7.3).
public struct OperatorSelection: Sendable, Hashable {
    /// `<mode>`: 0 automatic, 1 manual, 2 deregistered, 3 set format only, 4 manual/automatic.
    public var mode: Int
    /// `<format>` of ``name``; nil when not registered.
    public var format: COPS.Format?
    /// `<oper>`: name or numeric PLMN per ``format``; nil when not registered.
    public var name: String?
    /// `<AcT>` as reported.
    public var accessTechnology: Int?

    public init(mode: Int, format: COPS.Format? = nil, name: String? = nil, accessTechnology: Int? = nil) {
        self.mode = mode
        self.format = format
        self.name = name
        self.accessTechnology = accessTechnology
    }
}
