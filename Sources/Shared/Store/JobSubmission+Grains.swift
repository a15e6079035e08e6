import FarmCore

extension JobSubmission {
    /// The GOPs' keys (`ChunkGrains`) of the video chunks whose own key `cached` lacks: what to
    /// look up for `reuseCachedGrains`.
    public func grainKeys(uncachedIn cached: Set<String>) -> [String] {
        guard grainKeys.count == videoKeys.count else { return [] }
        return zip(videoKeys, grainKeys).flatMap { cached.contains($0) ? [] : $1 }
    }

    /// Every video chunk whose key `cached` lacks but some of whose GOPs' keys it holds is cut
    /// at its GOPs: each cached GOP becomes a chunk of its own, under its GOP's key, which the
    /// coordinator cuts from the cached segment holding it (`SegmentCut`); each run of GOPs
    /// between them, a chunk to render. An edit inside a long chunk then renders only the GOPs
    /// it changed: the output is the same however it is chunked.
    public mutating func reuseCachedGrains(cached: Set<String>) {
        guard project != nil, let length = grainLength, videoKeys.count == chunks.count,
            grainKeys.count == chunks.count
        else { return }
        var planned: [(chunk: Chunk, key: String?, grains: [String])] = []
        var changed = false
        for (chunk, (key, grains)) in zip(chunks, zip(videoKeys, grainKeys)) {
            guard !cached.contains(key), grains.contains(where: cached.contains) else {
                planned.append((chunk, key, grains))
                continue
            }
            changed = true
            let spans = ChunkGrains.grains(of: chunk, length: length)
            var first = 0
            while first < spans.count {
                var last = first + 1
                // A cached GOP alone; the GOPs to render, as one run.
                if !cached.contains(grains[first]) {
                    while last < spans.count && !cached.contains(grains[last]) { last += 1 }
                }
                let run = Chunk(index: 0, start: spans[first].start, end: spans[last - 1].end)
                // A run of one GOP is keyed by it; a longer one is keyed below, its GOPs kept.
                planned.append(last - first == 1 ? (run, grains[first], []) : (run, nil, Array(grains[first..<last])))
                first = last
            }
        }
        guard changed else { return }
        replan(planned)
    }

    /// Takes `planned` (in timeline order) as the job's video chunks, numbered again; those
    /// without a key are keyed from the project.
    mutating func replan(_ planned: [(chunk: Chunk, key: String?, grains: [String])]) {
        guard let project else { return }
        chunks = planned.enumerated().map {
            Chunk(index: $0.offset, start: $0.element.chunk.start, end: $0.element.chunk.end)
        }
        // Only the new chunks are keyed (a key does not depend on the chunk's number), not the
        // job's other 100,000.
        let unkeyed = zip(chunks, planned).filter { $0.1.key == nil }.map(\.0)
        var keys = ChunkKeys.keys(of: project, work: unkeyed, container: container, pins: mediaPins).makeIterator()
        videoKeys = planned.map { $0.key ?? keys.next()! }
        grainKeys = planned.map(\.grains)
    }
}
