import Foundation

/// A chunk's key: the SHA-256 of everything that can change the bytes of its segment (a video
/// chunk) or its encoded sound (an audio block). Two chunks with one key are the same bytes, so a
/// segment rendered once serves every later job whose chunk has its key (the segment cache).
///
/// What it covers (`ChunkMaterial`, tested field by field in ChunkKeyTests):
/// - the renderer's version (`rendererVersion`);
/// - the chunk's kind and range (frames, or samples), and for an audio block whether it ends
///   the timeline (the last block keeps the encoder's flush);
/// - the output settings, the export settings and the container;
/// - per track that the chunk reads (`ChunkInputs`), in order: its kind, opacity, hidden flag and
///   transform, the items it reads (cut off where the chunk ends, their heads kept), and the
///   transitions that touch them, with every time relative to the chunk's start, so that an
///   edit elsewhere on the timeline changes no other key;
/// - each asset those items play: its path and its pin (size, mtime, ctime, inode), so a file
///   replaced under the same name is a new key;
/// - for a video chunk, the grades of the output, of those tracks and of those items, each
///   `.cube` LUT by its path and the SHA-256 of its bytes (set by the loader), so a LUT edited in
///   place renders again; an audio block leaves grades out.
///
/// Not covered, so a farm keeps them one: the FFmpeg build and the workers' x264 instruction
/// set (`X264InstructionSet`), and the fonts titles are drawn with.
public enum ChunkKeys {
    /// Raised whenever rendering changes: what the compositor, mixer or encoders make of the
    /// same inputs. Every cached segment of an older version is then rendered again.
    /// 2: seeks confirmed on a decoded keyframe, media time on the container's timeline, sound on
    /// the codec's frame grid, matrices and HDR converted, anamorphic fits, colour tags.
    /// 3: HDR tone-mapped through planar RGB (chroma at every pixel); the 10-bit HDR canvas.
    /// 4: Opus placed past its pre-skip (24 samples later after a seek, 312 earlier from the
    /// start) and decoded from 1 s before a seek; pitch-kept speed in 5.1 aligned on the stereo mix.
    /// 5: resampled sound started on the resampler's phase grid after a seek (44.1 kHz sources),
    /// fixed-frame sound in MP4 and MOV placed by its packet's count after a seek, and HDR sources in
    /// P3-D65 converted from their own primaries.
    /// 6: a turned video's pictures turned in their own format, then converted and scaled in one
    /// step.
    public static let rendererVersion = 6

    /// The keys of the chunks or blocks of `work` (in timeline order).
    public static func keys<Span: WorkSpan>(
        of project: Project, work chunks: [Span], container: ExportSettings.Container,
        pins: [String: MediaPin], rendererVersion: Int = rendererVersion
    ) -> [String] {
        var keys: [String] = []
        keys.reserveCapacity(chunks.count)
        // One material at a time: a 100,000-chunk job never holds them all. One writer for
        // them all: each item is encoded once however many chunks it plays in.
        let writer = ChunkKeyWriter()
        forEachMaterial(
            of: project, work: chunks, container: container, pins: pins,
            rendererVersion: rendererVersion
        ) { keys.append(writer.key($0)) }
        return keys
    }

    /// The key of one chunk's material.
    public static func key(_ material: ChunkMaterial) -> String {
        ChunkKeyWriter().key(material)
    }

    /// What each key hashes.
    public static func materials<Span: WorkSpan>(
        of project: Project, work chunks: [Span], container: ExportSettings.Container,
        pins: [String: MediaPin], rendererVersion: Int = rendererVersion
    ) -> [ChunkMaterial] {
        var all: [ChunkMaterial] = []
        all.reserveCapacity(chunks.count)
        forEachMaterial(
            of: project, work: chunks, container: container, pins: pins,
            rendererVersion: rendererVersion
        ) { all.append($0) }
        return all
    }

    private static func forEachMaterial<Span: WorkSpan>(
        of project: Project, work chunks: [Span], container: ExportSettings.Container,
        pins: [String: MediaPin], rendererVersion: Int, _ body: (ChunkMaterial) -> Void
    ) {
        let totalSamples = project.output.samples(ofFrames: 0..<project.frameCount).upperBound
        // Each track's transitions by the items they join, once: a chunk then looks only at
        // the transitions of the items it reads, never at every transition of the track.
        let transitionsByItem = project.tracks.map { track in
            var byItem: [Int: [Int]] = [:]
            for (index, transition) in track.transitions.enumerated() {
                for item in Set([transition.outgoing, transition.incoming].compactMap { $0 }) {
                    byItem[item, default: []].append(index)
                }
            }
            return byItem
        }
        let kind = Span.kind
        // Grades change pictures only: a grade edited leaves the sound's keys alone.
        var output = project.output
        if kind == .audio { output.grade = nil }
        for (chunk, inputs) in zip(chunks, ChunkInputs.of(project, chunks)) {
            let origin = chunk.origin(in: project.output)
            var media: [String: ChunkMaterial.Media] = [:]
            for id in inputs.assets {
                media[id] = ChunkMaterial.Media(
                    path: project.assets[id]?.path ?? "", pin: pins[id], sequence: project.assets[id]?.sequence)
            }
            let material = ChunkMaterial(
                renderer: rendererVersion, kind: kind, start: chunk.start, end: chunk.end,
                endsTimeline: kind == .audio && chunk.end == totalSamples, output: output,
                export: project.export.withoutStills, container: container,
                tracks: inputs.tracks.map {
                    ChunkMaterial.TrackSlice(
                        project.tracks[$0.track], items: $0.items, transitions: transitionsByItem[$0.track],
                        span: inputs.span, origin: origin, pictures: kind == .video)
                },
                media: media, trackIndices: inputs.tracks.map(\.track))
            body(material)
        }
    }
}

/// Everything a chunk's key hashes (`ChunkKeys`).
public struct ChunkMaterial: Encodable, Equatable, Sendable {
    public struct Media: Encodable, Equatable, Sendable {
        public var path: String
        public var pin: MediaPin?
        /// Numbered frames' first frame and rate (absent for files: older keys stay as they were).
        public var sequence: Asset.ImageSequence?
    }

    /// A track as one chunk reads it: only its items that the chunk reads, times from the
    /// chunk's start, transitions between them renumbered.
    public struct TrackSlice: Encodable, Equatable, Sendable {
        public var kind: Track.Kind
        public var opacity: Double
        public var hidden: Bool
        public var transform: Transform
        /// The track's grade, its LUT's digest included.
        public var grade: ColourGrade?
        public var items: [Item]
        public var transitions: [Transition]
        /// The items' indices in the project's track (for `farm diff`; not hashed).
        public var itemIndices: [Int]

        init(
            _ track: Track, items indices: [Int], transitions byItem: [Int: [Int]], span: Range<Rational>,
            origin: Rational, pictures: Bool = true
        ) {
            kind = track.kind
            opacity = track.opacity
            hidden = track.hidden
            transform = track.transform
            grade = pictures ? track.grade : nil
            itemIndices = indices
            items = indices.map { index in
                var item = Self.trimmed(track.items[index], to: span)
                item.at = item.at - origin
                if !pictures { item.grade = nil }
                return item
            }
            // A transition counts when either of its items is read: an audio block reads a clip
            // but not the title it dissolves from, and the clip's fade is still the transition's.
            // An item not read is -1.
            let renumbered = Dictionary(uniqueKeysWithValues: indices.enumerated().map { ($1, $0) })
            // In the track's order, each once however many of its items are read.
            let touching = Set(indices.flatMap { byItem[$0] ?? [] }).sorted()
            transitions = touching.map { track.transitions[$0] }.compactMap { transition in
                let outgoing = transition.outgoing.flatMap { renumbered[$0] }
                let incoming = transition.incoming.flatMap { renumbered[$0] }
                guard outgoing != nil || incoming != nil else { return nil }
                var moved = transition
                // A fade's empty side stays empty (nil); an item not read is -1.
                moved.outgoing = transition.outgoing.map { _ in outgoing ?? -1 }
                moved.incoming = transition.incoming.map { _ in incoming ?? -1 }
                moved.cut = transition.cut - origin
                return moved
            }
        }

        private enum CodingKeys: String, CodingKey {
            case kind, opacity, hidden, transform, grade, items, transitions
        }

        /// The item as far as `span` reads it: what it plays after the span is cut off (its
        /// start, speed and keyframes unchanged), so that a clip made longer past the chunk
        /// leaves the chunk's key alone. Its head is never cut: the renderer times samples,
        /// stretch windows and transforms from the item's start, so a head moved is another
        /// render even where the same media shows.
        static func trimmed(_ item: Item, to span: Range<Rational>) -> Item {
            guard span.upperBound < item.end && span.upperBound > item.at else { return item }
            var cut = item
            let speed = item.speed
            cut.duration = span.upperBound - item.at
            cut.sourceDuration = cut.duration * speed
            return cut
        }
    }

    public var renderer: Int
    public var kind: ChunkKind
    public var start: Int64
    public var end: Int64
    public var endsTimeline: Bool
    public var output: OutputSettings
    public var export: ExportSettings
    public var container: ExportSettings.Container
    public var tracks: [TrackSlice]
    public var media: [String: Media]
    /// The tracks' indices in the project (for `farm diff`; not hashed).
    public var trackIndices: [Int]

    private enum CodingKeys: String, CodingKey {
        case renderer, kind, start, end, endsTimeline, output, export, container, tracks, media
    }
}
