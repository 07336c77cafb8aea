#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Posix {
    /// Raises this process's soft `RLIMIT_NOFILE` towards `target` (never above the hard limit,
    /// never lowering it) and returns the limits in effect afterwards.
    ///
    /// Why a daemon raises its own soft limit: systemd's default soft limit is 1,024 for
    /// compatibility with `select(2)`, which nothing here uses (every loop is `poll(2)` or
    /// `epoll(7)`); the unit's `LimitNOFILE=` sets both, a shell's `ulimit -n` may set only one.
    @discardableResult
    public static func raiseDescriptorLimit(toAtMost target: Int) -> (soft: Int, hard: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return (1024, 1024) }
        let wanted = min(rlim_t(max(0, target)), limit.rlim_max)
        if wanted > limit.rlim_cur {
            var raised = limit
            raised.rlim_cur = wanted
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return (Int(clamping: limit.rlim_cur), Int(clamping: limit.rlim_max))
    }
}
