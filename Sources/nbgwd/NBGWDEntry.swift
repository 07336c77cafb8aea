import Dispatch

/// The process entry point: runs ``NBGWD`` on the concurrency pool and parks the main thread until
/// it returns (``NBGWD`` ends the process itself with its exit code; `--help`, `--version` and
/// `--check-config` return here).
///
/// Why not an `async` main: on Linux the runtime then calls `dispatch_main()`, which ends the main
/// thread with `pthread_exit()`, and glibc unwinds its stack with libgcc's unwinder: a binary
/// search of the 1.3 MB `.eh_frame_hdr` table and reads of `.eh_frame`, about 0.7 MB of the
/// binary made resident for good, for nothing (perf page-fault profile, docs/operations.md
/// "Memory"). The price: the main queue is never served, so nothing in the daemon may use
/// `@MainActor` or `DispatchQueue.main` (nothing does, nor do its packages).
@main
enum NBGWDEntry {
    static func main() {
        let finished = DispatchSemaphore(value: 0)
        Task.detached {
            await NBGWD.main()
            finished.signal()
        }
        finished.wait()
    }
}
