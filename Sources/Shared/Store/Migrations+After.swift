extension Migrations {
    /// Step 24: jobs that wait on others (`farm submit --after JOB`, the API's `after`): the
    /// ids still to finish, NULL once none is. The claim passes such a job over; the end-of-job
    /// trigger takes a finished job out of its dependents' lists, or fails them when it failed
    /// or was cancelled (`StoreFunction.jobEnded`).
    static let after = """
        ALTER TABLE jobs ADD COLUMN waiting_for bigint[];
        CREATE INDEX jobs_waiting_for ON jobs USING gin (waiting_for) WHERE waiting_for IS NOT NULL;
        """
}
