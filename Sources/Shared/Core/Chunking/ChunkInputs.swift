/// What one chunk's render reads of a project: the items it shows or sounds, per track. A video
/// chunk reads the video items of shown tracks on screen during its frames; an audio block reads
/// every media item that is not muted (any may carry sound) and sounds while the block is mixed,
/// its pre-roll and tail included. Transitions' reach counts: an item fading in early is read.
///
/// The one definition of it: the worker probes these items' assets, and a chunk's key
/// (`ChunkKeys`) hashes these items, so the two cannot disagree.
public struct ChunkInputs: Sendable {
    public struct TrackItems: Sendable {
        /// The track's index in the project.
        public var track: Int
        /// Indices into the track's items, in order.
        public var items: [Int]
    }

    /// The timeline time the chunk's render reads.
    public let span: Range<Rational>
    public let tracks: [TrackItems]
    private let project: Project

    public init(project: Project, kind: ChunkKind, chunk: Chunk) {
        self = Self.of(project, kind: kind, chunks: [chunk])[0]
    }

    private init(project: Project, span: Range<Rational>, tracks: [TrackItems]) {
        self.project = project
        self.span = span
        self.tracks = tracks
    }

    /// The inputs of every chunk of `chunks` (in timeline order), in one sweep per track: a job
    /// of 100,000 chunks looks at each item once, plus once per chunk it plays in.
    public static func of(_ project: Project, kind: ChunkKind, chunks: [Chunk]) -> [ChunkInputs] {
        let spans = chunks.map { chunk -> Range<Rational> in
            switch kind {
            case .video: return project.output.time(ofFrame: chunk.start)..<project.output.time(ofFrame: chunk.end)
            case .audio: return AudioBlocks.timeSpan(of: chunk, sampleRate: project.output.audio.sampleRate)
            }
        }
        var perChunk = [[TrackItems]](repeating: [], count: chunks.count)
        for (trackIndex, track) in project.tracks.enumerated() {
            if kind == .video && (track.kind != .video || track.hidden) { continue }
            // Each item's reach on the timeline, transitions included, by where it starts.
            let extents = track.reaches
            let reaches = track.items.indices.compactMap { position -> (start: Rational, end: Rational, item: Int)? in
                let item = track.items[position]
                // Only media sounds: a title or a generated picture is no part of the mix.
                if kind == .audio && (item.muted || item.asset == nil) { return nil }
                return (item.at - extents[position].before, item.end + extents[position].after, position)
            }
            .sorted { $0.start < $1.start }
            var next = 0
            var active: [(start: Rational, end: Rational, item: Int)] = []
            for (chunk, span) in spans.enumerated() {
                while next < reaches.count && reaches[next].start < span.upperBound {
                    active.append(reaches[next])
                    next += 1
                }
                active.removeAll { $0.end <= span.lowerBound }
                let items = active.filter { $0.start < span.upperBound }.map(\.item).sorted()
                if !items.isEmpty { perChunk[chunk].append(TrackItems(track: trackIndex, items: items)) }
            }
        }
        return zip(spans, perChunk).map { ChunkInputs(project: project, span: $0, tracks: $1) }
    }

    /// The assets those items play.
    public var assets: Set<String> {
        Set(tracks.flatMap { entry in entry.items.compactMap { project.tracks[entry.track].items[$0].asset } })
    }
}
