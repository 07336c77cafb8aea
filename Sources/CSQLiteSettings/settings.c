// Process-wide SQLite settings (sqlite3_config), applied by a load-time constructor.
//
// Why at load time: sqlite3_config only works before SQLite initializes, which the first
// connection any part of the process opens does (GRDB, a test, a tool). Run from a constructor,
// the setting precedes every connection of every program that links nbgw's store, whatever it
// opens first; called lazily from the store's first use, it was skipped whenever something else
// had opened a database before. Why C: sqlite3_config is variadic, which Swift cannot call.
#include <sqlite3.h>

#include "CSQLiteSettings.h"

static int memory_statistics_result = -1;

__attribute__((constructor)) static void nbgw_sqlite3_settings(void) {
    // Memory statistics on make every sqlite3_malloc and sqlite3_free take one process-wide mutex:
    // the API key checks (request threads) and the group commit (the leader's thread) slept on it,
    // 5 % of the ingest server's context switches during binds. nbgw never reads the statistics
    // (sqlite3_memory_used) nor sets a soft heap limit, the only things they serve.
    memory_statistics_result = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    // Not set here: SQLITE_CONFIG_STMTJRNL_SPILL. A spill size of 200 000 bytes or more (tried to
    // keep savepoint journals in one chunk) makes SQLite 3.40.1 fail a DROP TABLE of a few hundred
    // pages (a 43 000-row table) with SQLITE_FULL; Registry keeps the writer's journals in memory instead.
}

int nbgw_sqlite3_memory_statistics_result(void) { return memory_statistics_result; }
