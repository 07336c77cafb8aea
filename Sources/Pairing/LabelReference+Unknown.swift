import NBGWCore

extension LabelReference {
    /// `UNKNOWN_DEVICE` for a label code of this gateway's cloud that names no registered module:
    /// the words of every path (a single bind, a batch row, the ingest API), built only when the
    /// store has no device with `code` (a batch row carries the code, never a ready-made error).
    public static func unknownError(code: String) -> NBGWError {
        NBGWError(
            .unknownDevice,
            "label code \(code.escapedForDisplay()) names no registered device; register the module first"
        )
    }
}
