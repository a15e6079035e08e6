extension Migrations {
    /// Step 26: `farm status JOB` reads its first 100 chunks rendering or failed in the order it
    /// lists them, stopping at the hundredth, where it sorted every such chunk first (45,000 of
    /// them in the scheduler benchmark's job: 98 ms); and a job's reused chunks are found from
    /// the attempts the cache made, not by reading every done chunk of the job.
    static let views = """
        DROP INDEX chunks_tried;
        CREATE INDEX chunks_tried ON chunks (job_id, (kind = 'audio') DESC, idx) WHERE state <> 'done' AND attempt > 0;
        CREATE INDEX attempts_reused ON attempts (chunk_id) WHERE outcome = 'reused';
        """
}
