import FarmCore
import FarmMedia
import FarmRender
import FarmWire
import Foundation

/// Renders one assignment into a file with the shared compositor: a video chunk's segment, or
/// the job's whole audio track. Each assignment gets a fresh renderer and encoder.
///
/// Parsed projects and probed media are cached per job; only the assets a chunk shows are
/// probed, so a damaged file fails the chunks that use it, not the whole job.
public final class AssignmentRenderer: @unchecked Sendable {
    public struct Output: Sendable {
        public var url: URL
        /// A video chunk's frames and their rate, or an audio block's samples.
        public var made: WorkMade
        /// The project's sample rate, to say how much sound a block made.
        public var sampleRate: Int
        /// The blocks of pinned media the render read, with their digests.
        public var mediaBlocks: [MediaReads.Block]
        /// What reading the pinned media cost.
        public var mediaCost: MediaReads.Cost
        /// A video chunk's first frame as a small JPEG (`Thumbnail`).
        public var thumbnail: [UInt8]?
        /// A video chunk's black frames (`TimelineRenderer.render`).
        public var black: [FrameRun]?
        /// The output's stills in a video chunk (`OutputStills`).
        public var stills: [StillTile] = []

        package init(
            url: URL, made: WorkMade, sampleRate: Int, mediaBlocks: [MediaReads.Block], mediaCost: MediaReads.Cost,
            thumbnail: [UInt8]? = nil, black: [FrameRun]? = nil, stills: [StillTile] = []
        ) {
            self.url = url
            self.made = made
            self.sampleRate = sampleRate
            self.mediaBlocks = mediaBlocks
            self.mediaCost = mediaCost
            self.thumbnail = thumbnail
            self.black = black
            self.stills = stills
        }
    }

    private let mediaRoot: URL?
    private let scratch: URL
    private let encoderThreads: Int
    private let cache = Locked<
        [Int64: (project: Project, media: [String: MediaInfo], captions: [String: [CaptionCue]])]
    >([:])

    public init(mediaRoot: URL?, scratch: URL, encoderThreads: Int) {
        self.mediaRoot = mediaRoot
        self.scratch = scratch
        self.encoderThreads = encoderThreads
    }

    /// A failure after some pinned asset was found as a copy says which (`FailedOnCopies`).
    public func render(
        _ assignment: Assignment, cancellation: StopFlag, progress: @escaping (RenderProgress) -> Void
    ) throws -> Output {
        var copies: [String] = []
        do {
            return try render(assignment, cancellation: cancellation, copies: &copies, progress: progress)
        } catch let error where !copies.isEmpty && !(error is MediaChangedError) {
            throw FailedOnCopies(error, assets: copies)
        }
    }

    private func render(
        _ assignment: Assignment, cancellation: StopFlag, copies: inout [String],
        progress: @escaping (RenderProgress) -> Void
    ) throws -> Output {
        let loaded = try load(assignment, copies: &copies)
        let folder = scratch.appendingPathComponent("chunk-\(assignment.key.chunk)-attempt-\(assignment.key.attempt)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var chunked = ChunkedRender(loaded: loaded, workDirectory: folder)
        chunked.encoderThreads = encoderThreads
        chunked.cancellation = cancellation
        chunked.durable = false
        let clock = ContinuousClock()
        let started = clock.now
        let url: URL
        var black: [FrameRun]?
        let work = assignment.work
        switch work {
        case .video(let chunk): (url, black) = try chunked.renderMeasuredSegment(chunk, progress: progress)
        case .audio(let block):
            chunked.programmeGain = assignment.programmeGain
            url = try chunked.renderAudioBlock(block)
        case .loudness(let block): url = try chunked.measureAudioBlock(block, trial: assignment.programmeGain)
        }
        // A reader that found another version fails the render, whatever FFmpeg made of it.
        if let changed = loaded.reads?.failure { throw changed }
        let seconds = (clock.now - started) / .seconds(1)
        let made: WorkMade =
            switch work {
            case .video(let chunk): .frames(chunk.frameCount, fps: Double(chunk.frameCount) / max(seconds, 0.001))
            case .audio(let block), .loudness(let block): .samples(block.sampleCount)
            }
        // Made after the speed is measured: a picture for people, not part of the render. A
        // chunk without one is still a good chunk.
        let thumbnail = work.kind == .video ? try? Thumbnail.jpeg(ofFirstFrameIn: url.path) : nil
        // Without them the join decodes the segment itself: the same pictures, later.
        let stills = work.kind == .video ? (try? Self.stills(of: loaded.project, segment: url, work: work)) ?? [] : []
        return Output(
            url: url, made: made, sampleRate: loaded.project.output.audio.sampleRate,
            mediaBlocks: loaded.reads?.blocks ?? [], mediaCost: loaded.reads?.cost ?? MediaReads.Cost(),
            thumbnail: thumbnail, black: black, stills: stills)
    }

    /// The output's stills (poster, thumbnails, preview pictures) that a video chunk's segment
    /// holds, as PNG: a farm job's output is its whole timeline, so output frames are timeline
    /// frames.
    static func stills(of project: Project, segment: URL, work: WorkItem) throws -> [StillTile] {
        guard case .video(let chunk) = work else { return [] }
        let output = project.output
        let keys = OutputStills.allKeys(
            project.export, frames: project.frameCount, fps: output.fps, width: output.width,
            in: chunk.start..<chunk.end)
        guard !keys.isEmpty else { return [] }
        let made = try OutputStills.make(
            keys, in: SegmentJoiner.Segment(url: segment, span: chunk), outputStart: 0, width: output.width,
            height: output.height, fps: output.fps, video: project.export.video)
        return try made.sorted { $0.key.frame < $1.key.frame }.map { key, picture in
            StillTile(frame: key.frame, width: key.width, png: try picture.encoded(as: .png))
        }
    }

    /// Forgets the scratch folder of an attempt once its result is accepted or dropped.
    public func discard(_ key: AttemptKey) {
        try? FileManager.default.removeItem(
            at: scratch.appendingPathComponent("chunk-\(key.chunk)-attempt-\(key.attempt)"))
    }

    /// The project with the media this assignment needs probed and checked; the assets found
    /// as copies of their pinned versions go into `copies` before anything is probed.
    private func load(_ assignment: Assignment, copies: inout [String]) throws -> LoadedProject {
        // The worker's own --media-root confines what it reads; the job's root only locates files.
        let loader = ProjectLoader(
            mediaRoot: mediaRoot ?? URL(fileURLWithPath: assignment.mediaRoot), confined: mediaRoot != nil)
        let known = cache.withLock { $0[assignment.job] }
        let project = try known?.project ?? loader.parse(text: assignment.projectText, file: assignment.projectFile)
        let needed = Self.assets(of: project, for: assignment)
        // Before anything is probed: one `stat` per asset, whatever the files weigh. Another
        // size is another file; a copy of the pinned size (another inode, ctime or path) is
        // read, its blocks checked by the coordinator against the pinned version's. The
        // readers check again on what they open and on every block they read.
        let pins = assignment.mediaPins ?? [:]
        for id in needed.sorted() {
            guard let pin = pins[id], let asset = project.assets[id] else { continue }
            let path = asset.path
            // Numbered frames pinned in blocks are checked by their reader, a block at a time
            // as the chunk reads them: never the whole sequence for every chunk.
            if asset.sequence != nil, pin.frameBlocks != nil { continue }
            // A file this worker cannot see is for the probe to report ("cannot read").
            guard let now = FileStamp(asset: asset) else { continue }
            switch pin.match(now) {
            case .changed: throw MediaChangedError(asset: id, path: path)
            // Numbered frames are read as they are, with no blocks to check: only the pinned
            // frames themselves will do.
            case .copy where asset.sequence != nil: throw MediaChangedError(asset: id, path: path)
            case .copy: copies.append(id)
            case .pinned: break
            }
        }
        var media = known?.media ?? [:]
        // Caption files are read whole, once per job: any chunk may show their cues.
        let captions = try known?.captions ?? loader.captions(of: project, file: assignment.projectFile)
        // Caption files are never probed: their cues are read above.
        let missing = needed.subtracting(media.keys).filter { project.assets[$0]?.isCaptions != true }
        if !missing.isEmpty || known == nil {
            try Self.checkRuns(of: missing, against: pins, in: project)
            let probed = try loader.check(project, file: assignment.projectFile, assets: missing)
            media.merge(probed.media) { old, _ in old }
            let result = media
            cache.withLock { $0[assignment.job] = (project, result, captions) }
        }
        var loaded = LoadedProject(
            project: project, media: media.filter { needed.contains($0.key) },
            reads: MediaReads(project: project, pins: pins, assets: needed))
        loaded.captions = captions
        // LUTs are small text files: read (and confined) for every assignment, never cached.
        loaded.luts = try loader.loadLUTs(project, file: assignment.projectFile).luts
        return loaded
    }

    /// Numbered frames whose folder holds another run than the pinned one (a frame removed
    /// or added that no block a chunk reads would show) fail as changed, before the probe
    /// takes the run: one listing of the folder when the worker first loads the asset.
    static func checkRuns(of assets: Set<String>, against pins: [String: MediaPin], in project: Project) throws {
        for id in assets {
            guard let run = pins[id]?.frameBlocks?.run, let asset = project.assets[id],
                let pattern = asset.framePattern
            else { continue }
            if pattern.run(from: asset.sequence?.firstFrame) != run {
                throw MediaChangedError(asset: id, path: asset.path)
            }
        }
    }

    /// The assets of the items the assignment's chunk shows or sounds (`ChunkInputs`).
    static func assets(of project: Project, for assignment: Assignment) -> Set<String> {
        ChunkInputs(project: project, work: assignment.work).assets
    }
}
