// The system SQLite (libsqlite3-dev), for the hot paths that use prepared statements directly
// (CSV batches, the bind transaction, the API key check, checkpoints). Everything else goes
// through GRDB, which links the same library.
#include <sqlite3.h>

/// Turns off SQLite's memory statistics (`SQLITE_CONFIG_MEMSTATUS`) for the whole process and
/// returns SQLite's result code: SQLITE_OK, or SQLITE_MISUSE when SQLite was already initialized
/// (then nothing changes; it only costs speed).
///
/// Why: with the statistics on, every sqlite3_malloc and sqlite3_free takes one process-wide
/// mutex, so connections used on different threads queue behind each other for every allocation.
/// In the ingest server the API key checks (on the request threads) and the group commits (on
/// the leader's thread) do: during binds at full load, 5 % of the server's context switches were
/// threads going to sleep on that mutex (perf, sched_switch stacks through sqlite3Malloc). nbgw
/// never reads the statistics (sqlite3_memory_used) nor sets a soft heap limit, the only things
/// they serve. A C function because sqlite3_config is variadic, which Swift cannot call.
static inline int nbgw_sqlite3_disable_memstatus(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
