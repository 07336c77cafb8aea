extension ModemDialect {
    /// Every known family, most specific first (BC660K before BC66, whose model string it contains).
    /// A new vendor adds one line here.
    public static let catalogue: [ModemDialect] = [
        .quectelBC95, .quectelBC660K, .quectelBC66, .quectelBG9x, .simcomSIM7000, .simcomSIM7080, .ubloxSARAN2,
        .ubloxSARAR4, .nordicNRF91,
    ]

    /// The dialect for a module's `AT+CGMI` / `AT+CGMM` answers (`docs/at-dialects.md` §9), or
    /// ``ts27007`` when no family matches.
    public static func identify(manufacturer: String?, model: String?) -> ModemDialect {
        catalogue.first { $0.identification?.matches(manufacturer: manufacturer, model: model) ?? false } ?? .ts27007
    }

    /// The dialect with identifier `id`.
    public static func named(_ id: String) -> ModemDialect? {
        ([ModemDialect.ts27007] + catalogue).first { $0.id == id }
    }

    /// Every family's URCs and boot markers at once: for talking to a module before knowing which
    /// one it is (the probe). Families do not reuse each other's URC names, so the union is safe.
    public static let unionURCTable: ATURCTable = catalogue.reduce(ATURCTable.ts27007Baseline) { table, dialect in
        table.adding(dialect.urcPatterns + dialect.bootMarkers)
    }

    /// Every family's boot markers.
    public static let allBootMarkers: [ATURCPattern] = {
        var markers: [ATURCPattern] = []
        for marker in catalogue.flatMap(\.bootMarkers) where !markers.contains(marker) {
            markers.append(marker)
        }
        return markers
    }()
}
