extension ModemDialect {
    /// Quectel BC660K-GL: BC66 command style (`AT+QCGDEFCONT`, `AT+QBAND`, `AT+QSCLK`), `ATI` →
    /// `Quectel_Ltd` / `Quectel_BC660K-GL` / `Revision: BC660KGLAAR01A05`. The boot banner and
    /// `AT+QCCID` are **unverified** (few public sources); `+IP: <addr>` after registration is
    /// what host libraries wait for.
    public static let quectelBC660K: ModemDialect = {
        var dialect = ModemDialect.quectelBC66
        dialect.id = "quectel-bc660k"
        dialect.name = "Quectel BC660K-GL"
        dialect.identification = Identification(manufacturers: ["Quectel"], models: ["BC660"])
        dialect.bootMarkers = [.line("Leaving the BROM"), .line("RDY")]
        return dialect
    }()
}
