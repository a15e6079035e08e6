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
        var spread: [Chunk] = []
        // A kept chunk's key, or nil for a part, keyed below: only the parts are keyed again (a
        // key does not depend on the chunk's place), not the job's other 100,000 chunks.
        var keys: [String?] = []
        for (chunk, key) in zip(chunks, videoKeys) {
            guard !cached.contains(key) else {
                spread.append(chunk)
                keys.append(key)
                continue
            }
            // Chunks start on the frame multiple, so parts planned from the chunk's start do too.
            let pieces = ChunkPlanner.plan(
                frameCount: chunk.end - chunk.start, fps: fps, size: .count(parts),
                alignment: project.export.chunkAlignment)
            spread += pieces.map { Chunk(index: 0, start: chunk.start + $0.start, end: chunk.start + $0.end) }
            keys += Array(repeating: nil, count: pieces.count)
        }
        guard spread.count > chunks.count else { return }
        chunks = spread.enumerated().map { Chunk(index: $0.offset, start: $0.element.start, end: $0.element.end) }
        let newParts = zip(chunks, keys).filter { $0.1 == nil }.map(\.0)
        var partKeys = ChunkKeys.keys(of: project, work: newParts, container: container, pins: mediaPins)
            .makeIterator()
        videoKeys = keys.map { $0 ?? partKeys.next()! }
    }
}
