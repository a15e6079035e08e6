import Foundation

extension Migrations {
    /// Step 20: delivery. A job with a loudness target (`export.audio.loudness`) has a
    /// `loudness` row per audio block, its first pass; its `audio` rows are held
    /// (`audio_held`) until the coordinator has combined the measurements into the programme's
    /// figures (`loudness`) and one gain (`audio_gain`). Every job keeps its QC report (`qc`).
    static let loudness = """
        ALTER TABLE chunks DROP CONSTRAINT chunks_kind_check;
        ALTER TABLE chunks ADD CONSTRAINT chunks_kind_check CHECK (kind IN ('video', 'audio', 'loudness'));
        ALTER TABLE jobs ADD COLUMN audio_held boolean NOT NULL DEFAULT false, ADD COLUMN audio_gain text,
            ADD COLUMN loudness text, ADD COLUMN qc text;
        """ + heldClaim

    /// Step 19's claim, taking no held audio block: it is left as it was in every other way.
    static let heldClaim: String = {
        guard let start = pools.range(of: "CREATE OR REPLACE FUNCTION farm_claim(") else {
            preconditionFailure("step 19 defines farm_claim")
        }
        var claim = String(pools[start.lowerBound...])
        let edits = [
            ("    job_kind text;\n", "    job_kind text;\n    held boolean;\n"),
            (
                "FOR job, needs, job_kind IN SELECT j.id, j.requires, j.node_kind FROM jobs j",
                "FOR job, needs, job_kind, held IN SELECT j.id, j.requires, j.node_kind, j.audio_held FROM jobs j"
            ),
            (
                "c.job_id = job AND c.state = 'queued'",
                "c.job_id = job AND c.state = 'queued' AND NOT (held AND c.kind = 'audio')"
            ),
        ]
        for (old, new) in edits {
            precondition(claim.contains(old), "step 19's farm_claim changed: \(old)")
            claim = claim.replacingOccurrences(of: old, with: new)
        }
        return claim
    }()
}
