import CCairo

/// Renders labels with cairo (PNG, SVG, PDF: the QR's modules as filled squares, the text in the
/// system's monospace font through fontconfig) and as ZPL II text. Pure: payload and lines in,
/// bytes out; nothing here knows the store.
public enum LabelRenderer {
    /// The margin around a label's content.
    static let marginMM = 1.5
    /// The smallest module a printer reproduces reliably. Why 0.25 mm: two dots of a 203 dpi
    /// thermal printer; below that, modules smear into their neighbours.
    static let minimumModuleMM = 0.25
    /// Space between labels on a sheet and the sheet's margin.
    static let sheetGapMM = 2.0
    static let sheetMarginMM = 10.0

    /// One label as a PNG at `style.dpi` (modules snapped to whole pixels, so the code is crisp).
    public static func png(_ label: Label, style: LabelStyle = LabelStyle()) throws(LabelError) -> [UInt8] {
        try style.validate()
        let matrix = try QRMatrix.encode(label.payload, correction: style.correction)
        let perMM = Double(style.dpi) / 25.4
        let width = Int32((style.widthMM * perMM).rounded())
        let height = Int32((style.heightMM * perMM).rounded())
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height) else {
            throw LabelError("cairo could not make a \(width)×\(height) image")
        }
        defer { cairo_surface_destroy(surface) }
        try checkStatus(cairo_surface_status(surface), "making the image")
        let context = cairo_create(surface)
        defer { cairo_destroy(context) }
        try draw(
            label,
            matrix: matrix,
            on: context,
            at: (0, 0),
            size: (Double(width), Double(height)),
            perMM: perMM,
            snapToPixels: true,
            quietZone: style.quietZone
        )
        cairo_surface_flush(surface)
        let sink = ByteSink()
        let status = cairo_surface_write_to_png_stream(
            surface,
            ByteSink.write,
            Unmanaged.passUnretained(sink).toOpaque()
        )
        try checkStatus(status, "writing the PNG")
        return sink.bytes
    }

    /// One label as an SVG document, in millimetres.
    public static func svg(_ label: Label, style: LabelStyle = LabelStyle()) throws(LabelError) -> [UInt8] {
        try style.validate()
        let matrix = try QRMatrix.encode(label.payload, correction: style.correction)
        // The document's unit is the millimetre (cairo then writes width="50mm" and a viewBox in mm),
        // so the drawing's units are millimetres too.
        let perMM = 1.0
        let sink = ByteSink()
        let width = style.widthMM
        let height = style.heightMM
        guard
            let surface = cairo_svg_surface_create_for_stream(
                ByteSink.write,
                Unmanaged.passUnretained(sink).toOpaque(),
                width,
                height
            )
        else { throw LabelError("cairo could not make an SVG surface") }
        cairo_svg_surface_set_document_unit(surface, CAIRO_SVG_UNIT_MM)
        let context = cairo_create(surface)
        do {
            try draw(
                label,
                matrix: matrix,
                on: context,
                at: (0, 0),
                size: (width, height),
                perMM: perMM,
                snapToPixels: false,
                quietZone: style.quietZone
            )
        } catch {
            cairo_destroy(context)
            cairo_surface_destroy(surface)
            throw error
        }
        cairo_destroy(context)
        cairo_surface_finish(surface)
        let status = cairo_surface_status(surface)
        cairo_surface_destroy(surface)
        try checkStatus(status, "writing the SVG")
        return sink.bytes
    }

    /// Where each label of a sheet goes: labels per row, rows per page, and the page size (points).
    public struct SheetLayout: Sendable, Equatable {
        public var columns: Int
        public var rows: Int
        public var pageWidthMM: Double
        public var pageHeightMM: Double
        public var perPage: Int { columns * rows }
    }

    /// The grid of `style`'s labels on `paper`, or an error when one does not fit.
    public static func layout(_ style: LabelStyle, paper: LabelPaper) throws(LabelError) -> SheetLayout {
        guard let page = paper.pageMM else {
            return SheetLayout(columns: 1, rows: 1, pageWidthMM: style.widthMM, pageHeightMM: style.heightMM)
        }
        let usableWidth = page.width - 2 * sheetMarginMM + sheetGapMM
        let usableHeight = page.height - 2 * sheetMarginMM + sheetGapMM
        let columns = Int(usableWidth / (style.widthMM + sheetGapMM))
        let rows = Int(usableHeight / (style.heightMM + sheetGapMM))
        guard columns > 0, rows > 0 else {
            throw LabelError(
                "a \(style.widthMM)×\(style.heightMM) mm label does not fit on \(paper.rawValue) with "
                    + "\(sheetMarginMM) mm margins; use --paper roll or a smaller --size"
            )
        }
        return SheetLayout(columns: columns, rows: rows, pageWidthMM: page.width, pageHeightMM: page.height)
    }

    /// Labels as a PDF: a grid per page on A4 or Letter, or one label per page for a roll.
    public static func pdf(
        _ labels: [Label],
        style: LabelStyle = LabelStyle(),
        paper: LabelPaper = .a4
    ) throws(LabelError) -> [UInt8] {
        try style.validate()
        guard !labels.isEmpty else { throw LabelError("no labels to lay out") }
        let matrices = try labels.map { label throws(LabelError) in
            try QRMatrix.encode(label.payload, correction: style.correction)
        }
        let grid = try layout(style, paper: paper)
        let perMM = 72 / 25.4
        let sink = ByteSink()
        guard
            let surface = cairo_pdf_surface_create_for_stream(
                ByteSink.write,
                Unmanaged.passUnretained(sink).toOpaque(),
                grid.pageWidthMM * perMM,
                grid.pageHeightMM * perMM
            )
        else { throw LabelError("cairo could not make a PDF surface") }
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_TITLE, "nbgw pairing labels")
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, "nbgw labels")
        let context = cairo_create(surface)
        var failure: LabelError?
        // A sheet's grid is centred on the page, so a guillotine cuts the same margin on each side.
        let gridWidth = Double(grid.columns) * style.widthMM + Double(grid.columns - 1) * sheetGapMM
        let gridHeight = Double(grid.rows) * style.heightMM + Double(grid.rows - 1) * sheetGapMM
        let left = (grid.pageWidthMM - gridWidth) / 2
        let top = (grid.pageHeightMM - gridHeight) / 2
        for (index, label) in labels.enumerated() {
            let slot = index % grid.perPage
            if slot == 0, index > 0 { cairo_show_page(context) }
            let column = Double(slot % grid.columns)
            let row = Double(slot / grid.columns)
            let x = (left + column * (style.widthMM + sheetGapMM)) * perMM
            let y = (top + row * (style.heightMM + sheetGapMM)) * perMM
            do {
                try draw(
                    label,
                    matrix: matrices[index],
                    on: context,
                    at: (x, y),
                    size: (style.widthMM * perMM, style.heightMM * perMM),
                    perMM: perMM,
                    snapToPixels: false,
                    quietZone: style.quietZone,
                    outline: paper != .roll
                )
            } catch {
                failure = error
                break
            }
        }
        cairo_show_page(context)
        cairo_destroy(context)
        cairo_surface_finish(surface)
        let status = cairo_surface_status(surface)
        cairo_surface_destroy(surface)
        if let failure { throw failure }
        try checkStatus(status, "writing the PDF")
        return sink.bytes
    }

    /// Draws one label with its top-left corner at `origin`, in the context's units (`perMM` of
    /// them per millimetre): a white field, the QR (with its quiet zone) on the left of a wide
    /// label or on top of a tall one, and the lines of text beside or below it.
    static func draw(
        _ label: Label,
        matrix: QRMatrix,
        on context: OpaquePointer?,
        at origin: (x: Double, y: Double),
        size: (width: Double, height: Double),
        perMM: Double,
        snapToPixels: Bool,
        quietZone: Int,
        outline: Bool = false
    ) throws(LabelError) {
        let margin = marginMM * perMM
        cairo_save(context)
        defer { cairo_restore(context) }
        cairo_translate(context, origin.x, origin.y)
        cairo_set_source_rgb(context, 1, 1, 1)
        cairo_rectangle(context, 0, 0, size.width, size.height)
        cairo_fill(context)
        if outline {
            // A hairline in light grey: where to cut, outside the quiet zone.
            cairo_set_source_rgb(context, 0.8, 0.8, 0.8)
            cairo_set_line_width(context, 0.1 * perMM)
            cairo_rectangle(context, 0, 0, size.width, size.height)
            cairo_stroke(context)
        }

        cairo_select_font_face(context, "monospace", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL)
        let lines = label.lines
        let wide = size.width >= size.height * 1.5
        // Text: a height of about 8 % of the shorter side per line, shrunk until the longest line fits.
        var fontSize = min(size.width, size.height) * 0.08
        let codeArea: Double
        let textBox: (x: Double, y: Double, width: Double, height: Double)
        if wide {
            codeArea = size.height - 2 * margin
            let textX = margin + codeArea + margin
            textBox = (textX, margin, size.width - textX - margin, size.height - 2 * margin)
            fontSize = min(size.height * 0.11, textBox.height / (Double(max(lines.count, 1)) * 1.3))
        } else {
            let textHeight = lines.isEmpty ? 0 : Double(lines.count) * fontSize * 1.3
            codeArea = min(size.width - 2 * margin, size.height - 2 * margin - textHeight)
            textBox = (margin, margin + codeArea, size.width - 2 * margin, textHeight)
        }
        cairo_set_font_size(context, 1)
        for line in lines where !line.isEmpty {
            var extents = cairo_text_extents_t()
            cairo_text_extents(context, line, &extents)
            if extents.x_advance > 0 { fontSize = min(fontSize, textBox.width / extents.x_advance) }
        }

        let modulesAcross = Double(matrix.size + 2 * quietZone)
        var module = codeArea / modulesAcross
        if snapToPixels { module = module.rounded(.down) }
        guard module >= minimumModuleMM * perMM, module > 0 else {
            let needed = modulesAcross * minimumModuleMM + 2 * marginMM
            throw LabelError(
                "the QR needs \(matrix.size + 2 * quietZone) modules across, which do not fit in "
                    + "\(Int((codeArea / perMM).rounded())) mm"
                    + (snapToPixels ? " at this dpi" : "")
                    + ": give a label of at least \(Int(needed.rounded(.up))) mm on its short side"
                    + (snapToPixels ? " or a higher --dpi" : "")
            )
        }
        let codeSide = module * modulesAcross
        // Centre the code in its square.
        let codeX = (margin + (codeArea - codeSide) / 2).rounded(snapToPixels ? .down : .toNearestOrEven)
        let codeY = (margin + (codeArea - codeSide) / 2).rounded(snapToPixels ? .down : .toNearestOrEven)
        cairo_set_source_rgb(context, 0, 0, 0)
        cairo_set_antialias(context, snapToPixels ? CAIRO_ANTIALIAS_NONE : CAIRO_ANTIALIAS_DEFAULT)
        for y in 0..<matrix.size {
            // Runs of dark modules as one rectangle: fewer path elements, no hairline seams.
            var x = 0
            while x < matrix.size {
                guard matrix.isDark(x: x, y: y) else {
                    x += 1
                    continue
                }
                let start = x
                while x < matrix.size, matrix.isDark(x: x, y: y) { x += 1 }
                cairo_rectangle(
                    context,
                    codeX + Double(quietZone + start) * module,
                    codeY + Double(quietZone + y) * module,
                    Double(x - start) * module,
                    module
                )
            }
        }
        cairo_fill(context)
        cairo_set_antialias(context, CAIRO_ANTIALIAS_DEFAULT)

        cairo_set_font_size(context, fontSize)
        var fontExtents = cairo_font_extents_t()
        cairo_font_extents(context, &fontExtents)
        let lineHeight = fontSize * 1.3
        let blockHeight = Double(lines.count) * lineHeight
        var baseline = textBox.y + max(0, (textBox.height - blockHeight) / 2) + fontExtents.ascent
        for line in lines {
            cairo_move_to(context, textBox.x, baseline)
            cairo_show_text(context, line)
            baseline += lineHeight
        }
        try checkStatus(cairo_status(context), "drawing the label")
    }

    static func checkStatus(_ status: cairo_status_t, _ what: String) throws(LabelError) {
        guard status == CAIRO_STATUS_SUCCESS else {
            throw LabelError("cairo failed \(what): \(String(cString: cairo_status_to_string(status)))")
        }
    }
}

/// Collects what a cairo stream surface writes.
final class ByteSink {
    var bytes: [UInt8] = []

    static let write: cairo_write_func_t = { closure, data, length in
        guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
        let sink = Unmanaged<ByteSink>.fromOpaque(closure).takeUnretainedValue()
        sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
        return CAIRO_STATUS_SUCCESS
    }
}
