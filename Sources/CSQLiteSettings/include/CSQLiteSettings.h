// nbgw's process-wide SQLite settings, applied when the program loads (settings.c says why then).
#ifndef NBGW_CSQLITE_SETTINGS_H
#define NBGW_CSQLITE_SETTINGS_H

/// The statement and savepoint journal spill size nbgw sets (SQLITE_CONFIG_STMTJRNL_SPILL), bytes.
int nbgw_sqlite3_statement_journal_spill_bytes(void);

/// sqlite3_config's result for turning memory statistics off: SQLITE_OK (0), or SQLITE_MISUSE when
/// SQLite had been initialized before nbgw's settings ran (then SQLite's defaults stay: only slower).
int nbgw_sqlite3_memory_statistics_result(void);

/// sqlite3_config's result for the statement journal spill size, as above.
int nbgw_sqlite3_statement_journal_spill_result(void);

#endif
