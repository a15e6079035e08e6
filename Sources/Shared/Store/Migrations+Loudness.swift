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
        """
}
