extension Migrations {
    /// Step 21: where an attempt's and a join's time went (`farm trace`). Every instant is the
    /// coordinator's clock: the worker's phases arrive as spans and are placed back from when
    /// its `done` arrived, so no two machines' clocks need agree.
    static let trace = """
        -- Sent to the worker; received, render begun and ended there; upload complete and
        -- checked here; accepted. The claim is started_at (the database's clock).
        ALTER TABLE attempts ADD COLUMN sent_at timestamptz, ADD COLUMN received_at timestamptz,
            ADD COLUMN render_started_at timestamptz, ADD COLUMN rendered_at timestamptz,
            ADD COLUMN uploaded_at timestamptz, ADD COLUMN verified_at timestamptz,
            ADD COLUMN accepted_at timestamptz;
        -- A job's join: begun, the file written, its QC report measured.
        ALTER TABLE jobs ADD COLUMN join_started_at timestamptz, ADD COLUMN joined_at timestamptz,
            ADD COLUMN checked_at timestamptz;
        """
}
