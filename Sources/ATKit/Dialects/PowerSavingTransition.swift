/// A module entering or leaving 3GPP power saving mode (PSM), as its vendor URC reports it
/// (`docs/at-dialects.md` §7): `+NPSMR:1` (Hi21xx), `PSM POWER DOWN` (BG9x),
/// `+CPSMSTATUS: ENTER PSM` (SIM7080), `+QNBIOTEVENT: "ENTER PSM"` (BC66), `%XMODEMSLEEP: 1,...`
/// (nRF91).
public enum PowerSavingTransition: Sendable, Hashable {
    case entered
    case exited

    /// A hook for ``ModemDialect/powerSavingTransition`` from whole lines compared without spaces
    /// and quotes (`+NPSMR:1` and `+NPSMR: 1` are the same).
    public static func table(_ lines: [String: PowerSavingTransition]) -> @Sendable (ATURC) -> PowerSavingTransition? {
        let normalised = Dictionary(uniqueKeysWithValues: lines.map { (normalise($0.key), $0.value) })
        return { urc in normalised[normalise(urc.line)] }
    }

    static func normalise(_ line: String) -> String {
        String(line.uppercased().filter { $0 != " " && $0 != "\"" })
    }
}
