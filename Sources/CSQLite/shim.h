// The system SQLite (libsqlite3-dev), for the few hot paths that use prepared statements
// directly (CSV batches). Everything else goes through GRDB, which links the same library.
#include <sqlite3.h>
