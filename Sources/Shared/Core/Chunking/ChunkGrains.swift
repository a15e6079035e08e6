/// A video chunk's GOPs, each keyed as a chunk of its own (`ChunkKeys`): the grain of the
/// segment cache. An export that `encodesPerGOP` encodes each GOP of the timeline with an
/// encoder of its own, so a GOP's packets are the same bytes in whatever chunk it was rendered;
/// a cached segment then serves, GOP by GOP, a chunk an edit changed only in part
/// (`JobSubmission.reuseCachedGrains`, `SegmentCut`).
public enum ChunkGrains {
    /// Frames in a grain: the GOP, when every encode of `export` is encoded a GOP at a time
    /// into a file of packets; nil otherwise (a lossless or intra-only export's chunk is
    /// encoded from its own first frame, numbered frames are no segment to cut).
    public static func length(of export: ExportSettings, container: ExportSettings.Container) -> Int64? {
        guard container != .frames, export.videoSettings.allSatisfy(\.encodesPerGOP) else { return nil }
        return export.chunkAlignment
    }

    /// The grains of `chunk` (on multiples of `length` from the timeline's start, the last one
    /// ending with the chunk); none when the chunk is one grain or less, its own key then being
    /// its grain's.
    public static func grains(of chunk: Chunk, length: Int64) -> [Chunk] {
        guard length > 0, chunk.end - chunk.start > length else { return [] }
        var grains: [Chunk] = []
        var start = chunk.start
        while start < chunk.end {
            let end = min(chunk.end, (start / length + 1) * length)
            grains.append(Chunk(index: grains.count, start: start, end: end))
            start = end
        }
        return grains
    }

    /// The grains' keys of each of `chunks` (empty for a chunk of one grain), made in one pass.
    public static func keys(
        of project: Project, chunks: [Chunk], container: ExportSettings.Container, pins: [String: MediaPin]
    ) -> [[String]] {
        guard let length = length(of: project.export, container: container) else {
            return chunks.map { _ in [] }
        }
        let spans = chunks.map { Self.grains(of: $0, length: length) }
        var keys = ChunkKeys.keys(of: project, work: spans.flatMap { $0 }, container: container, pins: pins)
            .makeIterator()
        return spans.map { $0.map { _ in keys.next()! } }
    }
}
