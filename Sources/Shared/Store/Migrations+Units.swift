extension Migrations {
    /// Step 18: a chunk's span in its own unit. A video chunk spans output frames
    /// (`start_frame`, `end_frame`), an audio block timeline samples (`start_sample`,
    /// `end_sample`); the other pair is NULL, which a CHECK ties to the kind. An attempt counts
    /// what it made the same way: `frames_done` and `fps` for video, `samples_done` for audio.
    /// Until now audio rows held samples in the frame columns; they move, running jobs included.
    /// A NULL span sums to nothing, so a sum of frames can no longer take in a block's samples.
    /// The claim (`StoreFunction.claim`) reads the span from either pair.
    static let units = """
        ALTER TABLE chunks ADD COLUMN start_sample bigint, ADD COLUMN end_sample bigint,
            ALTER COLUMN start_frame DROP NOT NULL, ALTER COLUMN end_frame DROP NOT NULL;
        UPDATE chunks SET start_sample = start_frame, end_sample = end_frame, start_frame = NULL, end_frame = NULL
        WHERE kind = 'audio';
        ALTER TABLE chunks ADD CONSTRAINT chunks_span_in_its_unit CHECK (
            CASE kind
                WHEN 'video' THEN start_frame IS NOT NULL AND end_frame IS NOT NULL
                                  AND start_sample IS NULL AND end_sample IS NULL
                ELSE start_sample IS NOT NULL AND end_sample IS NOT NULL AND start_frame IS NULL AND end_frame IS NULL
            END);

        ALTER TABLE attempts ADD COLUMN samples_done bigint;
        UPDATE attempts a SET samples_done = a.frames_done, frames_done = 0, fps = NULL
        FROM chunks c WHERE c.id = a.chunk_id AND c.kind = 'audio';

        """
}
