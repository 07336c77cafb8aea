extension Registry {
    /// Migration v3: the cloud outbox (issue 5). Frozen once shipped.
    ///
    /// One row per piece of work the cloud must see (a registration, a bind, an unbind), written
    /// in the same transaction as the local change, so a crash can lose neither. A row is
    /// `pending` until a drainer claims it (`inflight`, with a lease that a crashed drainer lets
    /// run out), then `done` exactly once, or `dead` when the cloud refused it for good. The
    /// idempotency key goes on the wire: a row sent twice (a crash after the cloud acted but before
    /// `done` was committed) takes effect once. Rows for the same subject (an IMEI or device id) are
    /// sent in order.
    static let v3CloudOutbox = """
        CREATE TABLE cloud_outbox (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            idempotency_key TEXT NOT NULL UNIQUE
                CHECK (length(idempotency_key) BETWEEN 16 AND 64 AND idempotency_key NOT GLOB '*[^A-Za-z0-9._-]*'),
            operation TEXT NOT NULL CHECK (operation IN ('register', 'bind', 'unbind')),
            subject TEXT NOT NULL CHECK (length(subject) BETWEEN 1 AND 64),
            payload TEXT NOT NULL CHECK (length(payload) <= 4096 AND json_valid(payload)),
            state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'inflight', 'done', 'dead')),
            attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
            created_at INTEGER NOT NULL,
            next_attempt_at INTEGER NOT NULL,
            lease_owner TEXT CHECK (lease_owner IS NULL OR length(lease_owner) BETWEEN 1 AND 64),
            lease_until INTEGER,
            completed_at INTEGER,
            last_error_code TEXT CHECK (last_error_code IS NULL OR length(last_error_code) <= 64),
            last_error TEXT CHECK (last_error IS NULL OR length(last_error) <= 2048),
            result TEXT CHECK (result IS NULL OR (length(result) <= 4096 AND json_valid(result))),
            -- A lease exactly while in flight; a completion time exactly when finished.
            CHECK ((state = 'inflight') = (lease_owner IS NOT NULL AND lease_until IS NOT NULL)),
            CHECK ((state IN ('done', 'dead')) = (completed_at IS NOT NULL)),
            CHECK (state <> 'done' OR result IS NOT NULL),
            CHECK (state NOT IN ('inflight', 'done') OR attempts > 0)
        ) STRICT;
        CREATE INDEX cloud_outbox_due ON cloud_outbox(state, next_attempt_at);
        CREATE INDEX cloud_outbox_by_subject ON cloud_outbox(subject, id);

        -- Done is final: a row is marked done exactly once and never changes again.
        CREATE TRIGGER cloud_outbox_done_is_final BEFORE UPDATE ON cloud_outbox
        WHEN OLD.state = 'done'
        BEGIN SELECT RAISE(ABORT, 'cloud outbox row is already done'); END;

        -- A row can only leave flight through its lease owner, and only to a legal state.
        CREATE TRIGGER cloud_outbox_transitions BEFORE UPDATE OF state ON cloud_outbox
        WHEN NOT (
            (OLD.state = 'pending' AND NEW.state IN ('inflight', 'dead'))
            OR (OLD.state = 'inflight' AND NEW.state IN ('pending', 'done', 'dead', 'inflight'))
            OR (OLD.state = 'dead' AND NEW.state = 'pending'))
        BEGIN SELECT RAISE(ABORT, 'illegal cloud outbox state change'); END;

        -- Unfinished work is never deleted; finished rows may be pruned.
        CREATE TRIGGER cloud_outbox_keep_unfinished BEFORE DELETE ON cloud_outbox
        WHEN OLD.state IN ('pending', 'inflight')
        BEGIN SELECT RAISE(ABORT, 'cloud outbox row is not finished'); END;
        """
}
