extension DiscoveryEntry {
    /// The text table of `nbgw discovery list`: one row per port (PORT, DECISION, USB, IF, DRIVER,
    /// DEVICE), then the reason indented under it, and the rule when the reason does not already
    /// name it.
    ///
    /// ```
    /// PORT          DECISION  USB        IF  DRIVER  DEVICE
    /// /dev/ttyUSB0  skip      10c4:ea60  00  cp210x  ITead Sonoff Zigbee 3.0 USB Dongle Plus
    ///     generic USB-UART bridge CP210x 10c4:ea60 (not probed by default: tag it ID_NBGW_PROBE=1 or …)
    ///     rule: [discovery] generic_bridges = "tagged" (default)
    /// ```
    ///
    /// USB strings come from the device and are untrusted: control and bidi-override characters are
    /// shown as `\u{…}` escapes, never sent to the terminal.
    public static func table(_ entries: [DiscoveryEntry]) -> [String] {
        let header = ["PORT", "DECISION", "USB", "IF", "DRIVER", "DEVICE"]
        let rows = entries.map { entry in
            [
                entry.devnode, entry.decision.rawValue, entry.usbID ?? "-",
                entry.interfaceNumber.map { UdevPort.hex2($0) } ?? "-", entry.driver ?? "-", entry.deviceName,
            ].map(Self.displayable)
        }
        var widths = header.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        func render(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                index == cells.count - 1 ? cell : cell.padded(to: widths[index])
            }.joined(separator: "  ")
        }
        var lines = [render(header)]
        for (entry, row) in zip(entries, rows) {
            lines.append(render(row))
            lines.append("    " + displayable(entry.reason))
            let rule = entry.source.description
            if !entry.reason.contains(rule) { lines.append("    rule: " + displayable(rule)) }
        }
        return lines
    }

    /// "ITead Sonoff Zigbee 3.0 USB Dongle Plus", the product alone when it already names the maker,
    /// or "-".
    public var deviceName: String {
        switch (manufacturer, product) {
        case (let maker?, let product?): product.hasPrefix(maker) ? product : "\(maker) \(product)"
        case (nil, let product?): product
        case (let maker?, nil): maker
        case (nil, nil): "-"
        }
    }

    /// `text` with control characters (C0, DEL, C1) and bidi overrides written as `\u{…}`.
    static func displayable(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            let value = scalar.value
            let control = value < 0x20 || (0x7F...0x9F).contains(value)
            let bidi = (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
            if control || bidi {
                out += "\\u{\(String(value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

extension String {
    /// The text followed by spaces up to `length` characters (never cut).
    fileprivate func padded(to length: Int) -> String {
        count >= length ? self : self + String(repeating: " ", count: length - count)
    }
}
