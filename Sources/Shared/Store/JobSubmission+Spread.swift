import FarmCore

extension JobSubmission {
    /// A re-render that takes most chunks from the segment cache renders the rest one to a
    /// slot while the other slots idle: an edit inside one 16-second chunk of a 2-minute project
    /// rendered for 0.7 s on one of two cores (BENCHMARKS.md). Each video chunk whose key is not
    /// in `cached` is split, on the export's frame multiple, so that the chunks to render are at
    /// least `slots` where their frames allow. The output is the same however it is chunked; each
    /// part is keyed as a chunk of its own, so the same project submitted again finds the parts.
    public mutating func spreadUncached(over slots: Int, cached: Set<String>) {
        guard let project, videoKeys.count == chunks.count else { return }
        let uncached = videoKeys.filter { !cached.contains($0) }.count
        guard uncached > 0, uncached < slots else { return }
        let parts = (slots + uncached - 1) / uncached
        let grains = grainKeys.count == chunks.count ? grainKeys : chunks.map { _ in [] }
        var planned: [(chunk: Chunk, key: String?, grains: [String])] = []
        for (chunk, (key, chunkGrains)) in zip(chunks, zip(videoKeys, grains)) {
            guard !cached.contains(key) else {
                planned.append((chunk, key, chunkGrains))
                continue
            }
            // Chunks start on the frame multiple, so parts planned from the chunk's start do too.
            let pieces = ChunkPlanner.plan(
                frameCount: chunk.end - chunk.start, fps: fps, size: .count(parts),
                alignment: project.export.chunkAlignment)
            // The export's frame multiple is its GOP where GOPs are keyed: each part holds whole
            // GOPs of the chunk, and keeps their keys.
            let spans = grainLength.map { ChunkGrains.grains(of: chunk, length: $0) } ?? []
            for piece in pieces {
                let part = Chunk(index: 0, start: chunk.start + piece.start, end: chunk.start + piece.end)
                let inside = zip(spans, chunkGrains).filter { $0.0.start >= part.start && $0.0.end <= part.end }
                planned.append((part, nil, inside.count > 1 ? inside.map(\.1) : []))
            }
        }
        guard planned.count > chunks.count else { return }
        replan(planned)
    }
}
