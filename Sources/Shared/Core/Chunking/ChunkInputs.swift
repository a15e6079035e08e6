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

    public init(project: Project, work: WorkItem) {
        switch work {
        case .video(let chunk): self = Self.of(project, [chunk])[0]
        case .audio(let block), .loudness(let block): self = Self.of(project, [block])[0]
        }
    }

    private init(project: Project, span: Range<Rational>, tracks: [TrackItems]) {
        self.project = project
        self.span = span
        self.tracks = tracks
    }

    /// The inputs of every chunk or block of `work` (in timeline order), in one sweep per track:
    /// a job of 100,000 chunks looks at each item once, plus once per chunk it plays in.
    public static func of<Span: WorkSpan>(_ project: Project, _ work: [Span]) -> [ChunkInputs] {
        let kind = Span.kind
        let spans = work.map { $0.timeRead(in: project.output) }
        var perChunk = [[TrackItems]](repeating: [], count: spans.count)
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

    /// The assets those items play, caption files included: a chunk's key then covers the
    /// cues it burns in (the file's pin), and an edited caption file renders again.
    public var assets: Set<String> {
        Set(
            tracks.flatMap { entry in
                entry.items.compactMap { index -> String? in
                    let item = project.tracks[entry.track].items[index]
                    if case .captions(let placement) = item.content { return placement.asset }
                    return item.asset
                }
            })
    }
}
