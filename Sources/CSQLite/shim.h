// The system SQLite (libsqlite3-dev), for the hot paths that use prepared statements directly
// (CSV batches, the bind transaction, the API key check, checkpoints). Everything else goes
// through GRDB, which links the same library. Process-wide settings (sqlite3_config): CSQLiteSettings.
#include <sqlite3.h>
