extension Migrations {
    /// Step 19: pools and kinds of render node. A worker has tags (`farm-worker --tags`) and a
    /// kind (`RenderNodeKind`: its release, renderer, FFmpeg, x264 instruction set and fonts);
    /// a job has the tags it requires (`farm submit --requires`) and, from its first claim or a
    /// cache hit on, the kind that renders it. The claim gives a job's chunks only to workers
    /// whose tags cover its needs and whose kind is its kind, so the bytes of its chunks never
    /// depend on which machine took them. An attempt records its worker's kind, a cached
    /// segment the kind that made it, and an attempt the tail of its worker's log.
    static let pools = """
        ALTER TABLE workers ADD COLUMN tags text[] NOT NULL DEFAULT '{}',
            ADD COLUMN node_kind text NOT NULL DEFAULT '', ADD COLUMN node_summary text NOT NULL DEFAULT '';
        UPDATE workers SET node_kind = 'farm-' || version, node_summary = 'farm ' || version || ' (kind not reported)';
        ALTER TABLE jobs ADD COLUMN requires text[] NOT NULL DEFAULT '{}', ADD COLUMN node_kind text;
        -- Running jobs keep the kind their workers had; the others take their first claimant's.
        UPDATE jobs j SET node_kind = 'farm-' || w.version
        FROM (SELECT DISTINCT ON (c.job_id) c.job_id, x.version FROM chunks c JOIN workers x ON x.id = c.worker_id
              WHERE c.state = 'running' ORDER BY c.job_id, c.id) w
        WHERE j.id = w.job_id AND j.state IN ('queued', 'running');
        ALTER TABLE attempts ADD COLUMN node_kind text, ADD COLUMN log text;
        -- Entries of unknown kind are never reused: they may be another build's bytes.
        ALTER TABLE segment_cache ADD COLUMN node_kind text;

        """
}
