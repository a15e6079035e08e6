import ArgumentParser

/// `--chunk N`, a video chunk's index as `farm status JOB` shows it.
enum ChunkOption {
    /// Indexes are stored as a PostgreSQL integer and start at 0.
    static func check(_ chunk: Int?) throws {
        guard let chunk else { return }
        guard 0...Int(Int32.max) ~= chunk else {
            throw ValidationError("--chunk must be a chunk index, 0 or more (got \(chunk))")
        }
    }
}
