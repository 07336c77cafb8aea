extension Registry {
    /// Migration v10: the label printing audit (issue 22). Frozen once shipped.
    ///
    /// `label_print`: one row per label made for a module (`nbgw labels`, or the daemon's
    /// `[labels] directory`), with the format and where it went, so `nbgw labels --unprinted` finds
    /// the modules that have none yet. Append-only like `audit_log`.
    static let v10LabelPrints = """
        CREATE TABLE label_print (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            device_row INTEGER NOT NULL REFERENCES device(id) ON DELETE RESTRICT,
            printed_at INTEGER NOT NULL,
            format TEXT NOT NULL CHECK (format IN ('png', 'svg', 'pdf', 'zpl')),
            destination TEXT CHECK (destination IS NULL OR length(destination) <= 4096),
            source TEXT NOT NULL CHECK (source IN ('cli', 'daemon')),
            operator TEXT CHECK (operator IS NULL OR length(operator) <= 128)
        ) STRICT;
        CREATE INDEX label_print_by_device ON label_print(device_row);

        CREATE TRIGGER label_print_no_update BEFORE UPDATE ON label_print
        BEGIN SELECT RAISE(ABORT, 'label_print is append-only'); END;
        CREATE TRIGGER label_print_no_delete BEFORE DELETE ON label_print
        BEGIN SELECT RAISE(ABORT, 'label_print is append-only'); END;
        """
}
