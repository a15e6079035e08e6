import FarmCore

extension JobSubmission {
    /// The GOPs' keys (`ChunkGrains`) of the video chunks whose own key `cached` lacks: what to
    /// look up for `reuseCachedGrains`.
    public func grainKeys(uncachedIn cached: Set<String>) -> [String] {
        guard grainKeys.count == videoKeys.count else { return [] }
        return zip(videoKeys, grainKeys).flatMap { cached.contains($0) ? [] : $1 }
    }

    /// Where the cache holds a GOP: in the segment `segment` (cached whole), from its frame `first`.
    public struct CachedGrain: Sendable, Equatable {
        public var segment: String
        public var first: Int64

        public init(segment: String, first: Int64) {
            self.segment = segment
            self.first = first
        }
    }

    /// A chunk planned from cached GOPs that lie one after another in one segment: the cache is
    /// to hold its key as those frames of that segment.
    public struct GrainCut: Sendable, Equatable {
        public var chunk: Int
        public var segment: String
        public var frames: Range<Int64>
    }

    /// Every video chunk whose key `cached` lacks but some of whose GOPs' keys it holds is cut
    /// at its GOPs: the cached GOPs become chunks that the coordinator cuts from the cached
    /// segments holding them (`SegmentCut`), one chunk for GOPs that follow each other in one
    /// segment (`places`), returned as cuts for the cache to hold; each run of GOPs between
    /// them is a chunk to render. An edit inside a long chunk then renders only the GOPs it
    /// changed: the output is the same however it is chunked.
    @discardableResult
    public mutating func reuseCachedGrains(cached: Set<String>, places: [String: CachedGrain] = [:]) -> [GrainCut] {
        guard project != nil, let length = grainLength, videoKeys.count == chunks.count,
            grainKeys.count == chunks.count
        else { return [] }
        var planned: [(chunk: Chunk, key: String?, grains: [String])] = []
        var cuts: [GrainCut] = []
        var changed = false
        for (chunk, (key, grains)) in zip(chunks, zip(videoKeys, grainKeys)) {
            guard !cached.contains(key), grains.contains(where: cached.contains) else {
                planned.append((chunk, key, grains))
                continue
            }
            changed = true
            let spans = ChunkGrains.grains(of: chunk, length: length)
            // Whether GOP `next` follows GOP `next - 1` in the segment holding it.
            func follows(_ next: Int) -> Bool {
                guard let before = places[grains[next - 1]], let place = places[grains[next]] else { return false }
                return place.segment == before.segment && place.first == before.first + spans[next - 1].frameCount
            }
            var first = 0
            while first < spans.count {
                let isCached = cached.contains(grains[first])
                var last = first + 1
                while last < spans.count && cached.contains(grains[last]) == isCached && (!isCached || follows(last)) {
                    last += 1
                }
                let run = Chunk(index: 0, start: spans[first].start, end: spans[last - 1].end)
                if last - first == 1 {
                    // One GOP is keyed by it.
                    planned.append((run, grains[first], []))
                } else {
                    // Keyed below, its GOPs kept.
                    if isCached, let place = places[grains[first]] {
                        cuts.append(
                            GrainCut(
                                chunk: planned.count, segment: place.segment,
                                frames: place.first..<(place.first + run.frameCount)))
                    }
                    planned.append((run, nil, Array(grains[first..<last])))
                }
                first = last
            }
        }
        guard changed else { return [] }
        replan(planned)
        return cuts
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
