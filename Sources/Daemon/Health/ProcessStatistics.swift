import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// This process's resource use, read from `/proc/self` (Linux): resident memory, its peak, and
/// CPU time. Fields are nil where `/proc` is unavailable.
public struct ProcessStatistics: Sendable, Equatable {
    /// Resident set size now (`VmRSS`), in bytes.
    public var residentBytes: Int?
    /// Peak resident set size (`VmHWM`), in bytes.
    public var peakResidentBytes: Int?
    /// User plus system CPU time, in seconds.
    public var cpuSeconds: Double?

    public init(residentBytes: Int?, peakResidentBytes: Int?, cpuSeconds: Double?) {
        self.residentBytes = residentBytes
        self.peakResidentBytes = peakResidentBytes
        self.cpuSeconds = cpuSeconds
    }

    /// Reads the current figures.
    public static func current() -> ProcessStatistics {
        var statistics = ProcessStatistics(residentBytes: nil, peakResidentBytes: nil, cpuSeconds: nil)
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) {
            for line in status.split(separator: "\n") {
                if line.hasPrefix("VmRSS:") { statistics.residentBytes = kibibytes(line) }
                if line.hasPrefix("VmHWM:") { statistics.peakResidentBytes = kibibytes(line) }
            }
        }
        var usage = rusage()
        if getrusage(Int32(RUSAGE_SELF.rawValue), &usage) == 0 {
            statistics.cpuSeconds =
                Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
                + Double(usage.ru_stime.tv_usec) / 1e6
        }
        return statistics
    }

    /// "VmRSS:     12345 kB" → 12345 × 1024.
    private static func kibibytes(_ line: Substring) -> Int? {
        line.split(separator: " ").dropFirst().first.flatMap { Int($0) }.map { $0 * 1024 }
    }
}
