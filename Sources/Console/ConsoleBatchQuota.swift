import NBGWCore

/// How much an upload may take (pure: sizes in, a refusal out): at most the largest file, and with
/// the report it will write, no more than the batch directory's quota leaves.
struct ConsoleBatchQuota: Sendable {
    /// What the check at the upload counts a report as, in times its upload. Measured on 50,000 to
    /// 200,000 rows: 1.0× for `tools/bench/gen_csv.py`'s mix (mostly bound label URLs), 3.0× for label
    /// URLs that all fail (each report row carries the message), 30× for rows of a few bytes that
    /// all fail. So this is an estimate for real scans; while a batch runs, ``ConsoleBatches`` stops
    /// it at a chunk boundary once its report would pass the quota.
    static let reportFactor: Int64 = 3

    /// The largest upload.
    let maxUploadBytes: Int64
    /// The most the directory may hold.
    let quotaBytes: Int64

    /// What an upload of `bytes` will take once its report is written.
    static func footprint(_ bytes: Int64) -> Int64 { bytes * (1 + reportFactor) }

    /// Why an upload of `bytes` (received so far, or as declared) cannot go on while the directory
    /// holds `used` bytes; nil when it can.
    func refusal(bytes: Int64, used: Int64) -> ConsoleBatchRefusal? {
        if bytes > maxUploadBytes {
            return ConsoleBatchRefusal(
                NBGWError(
                    .payloadTooLarge,
                    "a CSV upload is at most \(Self.mebibytes(maxUploadBytes)) ([console] batch_max_upload); split "
                        + "the file and upload the parts one after the other"
                )
            )
        }
        let needed = Self.footprint(bytes)
        guard used + needed > quotaBytes else { return nil }
        return ConsoleBatchRefusal(
            NBGWError(
                .payloadTooLarge,
                "the console's batch files would pass their quota: \(Self.mebibytes(used)) of "
                    + "\(Self.mebibytes(quotaBytes)) in use, and this upload with its report needs about "
                    + "\(Self.mebibytes(needed)); download the reports you need and wait for them to expire "
                    + "([console] batch_retention), or raise [console] batch_quota"
            )
        )
    }

    /// `bytes` in MiB as a person reads it: "64 MiB", "0.5 MiB".
    static func mebibytes(_ bytes: Int64) -> String {
        let value = Double(bytes) / 1_048_576
        if value >= 10 || value == value.rounded() { return "\(Int64(value.rounded())) MiB" }
        return "\((value * 10).rounded() / 10) MiB"
    }
}
