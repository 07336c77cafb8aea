// nbgw's process-wide SQLite setting (memory statistics off), applied when the program loads
// (settings.c says why then).
#ifndef NBGW_CSQLITE_SETTINGS_H
#define NBGW_CSQLITE_SETTINGS_H

/// sqlite3_config's result for turning memory statistics off: SQLITE_OK (0), or SQLITE_MISUSE when
/// SQLite had been initialized before nbgw's settings ran (then SQLite's defaults stay: only slower).
int nbgw_sqlite3_memory_statistics_result(void);

#endif
