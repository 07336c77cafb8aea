extension Registry {
    /// Migration v6: an ingest API bind's origin (the API key's name and the client's address) on
    /// its `audit_log` row itself. Frozen once shipped.
    ///
    /// Why: until v6 every successful HTTP bind also wrote an `ingest_audit` row carrying these two
    /// values, linked to the audit row. That row, its three indexes and its `sqlite_sequence`
    /// update were a tenth of the ingest server's CPU time per bind and a quarter of the pages a
    /// group commit wrote (docs/ingest.md, "2026-11-26, later"). A successful bind now writes the
    /// origin on its audit row and no `ingest_audit` row; ``Registry/Audit-swift.struct/ingestTrail(deviceID:limit:)``
    /// shows those audit rows as the bind's trail entries. `ingest_audit` keeps every other kind of
    /// entry (unchanged and refused binds, unbinds, tokens) and the bind rows written before v6.
    ///
    /// Both columns are NULL for everything that did not come through the ingest API; a row has
    /// both or neither. Adding columns keeps the table (no copy of a large log), and its
    /// append-only triggers.
    static let v6AuditOrigin = """
        ALTER TABLE audit_log ADD COLUMN api_key TEXT
            CHECK (api_key IS NULL OR length(api_key) BETWEEN 1 AND 64);
        ALTER TABLE audit_log ADD COLUMN client_address TEXT
            CHECK ((client_address IS NULL) = (api_key IS NULL)
                AND (client_address IS NULL OR length(client_address) <= 128));
        """
}
