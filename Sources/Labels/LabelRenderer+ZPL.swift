extension LabelRenderer {
    /// Labels as Zebra ZPL II, one `^XA … ^XZ` format per label, for `style.dpi` (a Zebra's 203,
    /// 300 or 600): the QR as `^BQN,2,m` (model 2, magnification m, error correction from the
    /// style, 8-bit data) and each line of text in the printer's scalable font `^A0`.
    ///
    /// Field data goes through `^FH` (hex escapes with `_`), so a `^`, `~` or `_` in a payload or a
    /// line can never end a field or start a command; `^CI28` says the data is UTF-8.
    public static func zpl(_ labels: [Label], style: LabelStyle = LabelStyle()) throws(LabelError) -> String {
        try style.validate()
        let dotsPerMM = Double(style.dpi) / 25.4
        let width = Int((style.widthMM * dotsPerMM).rounded())
        let height = Int((style.heightMM * dotsPerMM).rounded())
        let margin = Int((marginMM * dotsPerMM).rounded())
        var out = ""
        for label in labels {
            let matrix = try QRMatrix.encode(label.payload, correction: style.correction)
            let wide = style.widthMM >= style.heightMM * 1.5
            let area = wide ? height - 2 * margin : min(width, height) * 2 / 3
            // ^BQ draws each module magnification × magnification dots (1…10).
            let magnification = min(10, area / (matrix.size + 2 * style.quietZone))
            guard magnification >= 1, Double(magnification) / dotsPerMM >= minimumModuleMM else {
                throw LabelError(
                    "the QR (\(matrix.size) modules) does not fit a \(style.widthMM)×\(style.heightMM) mm "
                        + "label at \(style.dpi) dpi; give a larger --size"
                )
            }
            let quiet = style.quietZone * magnification
            let textX = wide ? margin + area + margin : margin
            let textY = wide ? margin : margin + area
            let textWidth = width - textX - margin
            let longest = max(1, label.lines.map(\.count).max() ?? 1)
            // ^A0 glyphs are about 0.6 of their height wide.
            let fontHeight = max(
                12,
                min(
                    (wide ? height - 2 * margin : height - textY - margin) / max(1, label.lines.count) * 10 / 13,
                    Int(Double(textWidth) / (Double(longest) * 0.6))
                )
            )
            out += "^XA\n^CI28\n^PW\(width)\n^LL\(height)\n"
            out += "^FO\(margin + quiet),\(margin + quiet)^BQN,2,\(magnification)"
            out += "^FH^FD\(style.correction.rawValue)M,B\(String(format4: label.payload.utf8.count))"
            out += "\(escape(label.payload))^FS\n"
            for (index, line) in label.lines.enumerated() {
                let y = textY + index * fontHeight * 13 / 10
                out += "^FO\(textX),\(y)^A0N,\(fontHeight),\(fontHeight)^FH^FD\(escape(line))^FS\n"
            }
            out += "^XZ\n"
        }
        return out
    }

    /// `^FH` hex escapes for the characters ZPL gives a meaning: `^` and `~` (commands), `_` (the
    /// escape itself); control characters too.
    static func escape(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case 0x5E, 0x7E, 0x5F, 0..<0x20, 0x7F:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "_" + (hex.count == 1 ? "0" + hex : hex)
            default:
                out.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        // Non-ASCII bytes were appended as Latin-1 scalars above; rebuild them as UTF-8 text.
        return String(decoding: out.unicodeScalars.map { UInt8($0.value) }, as: UTF8.self)
    }
}

extension String {
    /// Four decimal digits, zero-padded (`^BQ`'s byte mode count: `B0042`).
    init(format4 value: Int) {
        let digits = String(value)
        self = String(repeating: "0", count: Swift.max(0, 4 - digits.count)) + digits
    }
}
