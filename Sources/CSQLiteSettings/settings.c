// Process-wide SQLite settings (sqlite3_config), applied by a load-time constructor.
//
// Why at load time: sqlite3_config only works before SQLite initializes, which the first
// connection any part of the process opens does (GRDB, a test, a tool). Run from a constructor,
// the settings precede every connection of every program that links nbgw's store, whatever it
// opens first; called lazily from the store's first use, they were skipped whenever something
// else had opened a database before. Why C: sqlite3_config is variadic, which Swift cannot call.
#include <sqlite3.h>

#include "CSQLiteSettings.h"

// A bind's savepoint journal holds the original of every page the bind changes (about 50 KiB) and
// is emptied at the bind's RELEASE in a group commit. SQLite's default spill size is 64 KiB:
// past it the journal moves to a temporary file, created, written and deleted, which one group
// in ten did. Keeping journals in memory with `temp_store = MEMORY` instead (nbgw before
// 2026-11-26) builds them from 1 KiB chunks, one malloc and free each, about fifty per bind; below
// the spill size a journal is a single chunk of that size. 256 KiB is four binds' worth
// (measured: 3 % less server CPU per bind than `temp_store = MEMORY`, docs/ingest.md).
enum { statement_journal_spill = 256 * 1024 };

static int memory_statistics_result = -1;
static int statement_journal_spill_result = -1;

__attribute__((constructor)) static void nbgw_sqlite3_settings(void) {
    // Memory statistics on make every sqlite3_malloc and sqlite3_free take one process-wide mutex:
    // the API key checks (request threads) and the group commit (the leader's thread) slept on it,
    // 5 % of the ingest server's context switches during binds. nbgw never reads the statistics
    // (sqlite3_memory_used) nor sets a soft heap limit, the only things they serve.
    memory_statistics_result = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    statement_journal_spill_result = sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, statement_journal_spill);
}

int nbgw_sqlite3_statement_journal_spill_bytes(void) { return statement_journal_spill; }
int nbgw_sqlite3_memory_statistics_result(void) { return memory_statistics_result; }
int nbgw_sqlite3_statement_journal_spill_result(void) { return statement_journal_spill_result; }
