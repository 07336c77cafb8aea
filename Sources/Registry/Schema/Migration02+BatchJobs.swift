extension Registry {
    /// Migration v2: CSV batch jobs (issue 4). Frozen once shipped.
    ///
    /// A job remembers where its input ends up committed (`next_offset`, `next_line`) and how much
    /// of its report file is backed by committed rows (`report_offset`); both move in the same
    /// transaction as the chunk's bindings, which is what makes `kill -9` + rerun exactly-once.
    static let v2BatchJobs = """
        CREATE TABLE batch_job (
            id INTEGER PRIMARY KEY,
            input_path TEXT NOT NULL,
            input_size INTEGER NOT NULL CHECK (input_size >= 0),
            input_mtime_ns INTEGER NOT NULL,
            report_path TEXT NOT NULL,
            default_account TEXT,
            default_home TEXT,
            operator TEXT,
            started_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            finished_at INTEGER,
            abandoned_at INTEGER,
            next_offset INTEGER NOT NULL CHECK (next_offset >= 0),
            next_line INTEGER NOT NULL CHECK (next_line >= 1),
            report_offset INTEGER NOT NULL DEFAULT 0 CHECK (report_offset >= 0),
            rows_done INTEGER NOT NULL DEFAULT 0,
            bound INTEGER NOT NULL DEFAULT 0,
            unchanged INTEGER NOT NULL DEFAULT 0,
            failed INTEGER NOT NULL DEFAULT 0,
            failures_by_code TEXT NOT NULL DEFAULT '{}',
            CHECK (finished_at IS NULL OR abandoned_at IS NULL)
        ) STRICT;

        -- At most one unfinished job per input file: a rerun resumes it.
        CREATE UNIQUE INDEX batch_job_open_per_input ON batch_job(input_path)
            WHERE finished_at IS NULL AND abandoned_at IS NULL;

        -- The devices a job has met, with the first line naming each: duplicates in one file are
        -- found by the primary key, across chunks and across a crash and resume.
        CREATE TABLE batch_job_device (
            job_id INTEGER NOT NULL REFERENCES batch_job(id) ON DELETE CASCADE,
            device_row INTEGER NOT NULL REFERENCES device(id),
            line INTEGER NOT NULL,
            PRIMARY KEY (job_id, device_row)
        ) STRICT, WITHOUT ROWID;
        """
}
