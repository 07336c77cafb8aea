import NBGWCore
import Pairing

/// Messages about labels, so single binds, batches and the ingest API say the same.
public enum CloudLabels {
    /// A label under another prefix than the configured cloud's.
    public static func foreign(_ label: LabelReference, base: String) -> NBGWError {
        NBGWError(
            .qrProtocolNotRecognized,
            "label \(label.url.escapedForDisplay()) was not issued by the configured cloud "
                + "(its labels start with \(base)); resolve it with the cloud that issued it"
        )
    }

    /// A label under this cloud's prefix whose code names no module.
    public static func unknown(_ label: LabelReference) -> NBGWError {
        LabelReference.unknownError(code: label.code)
    }
}
