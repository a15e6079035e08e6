import FarmCore
import Foundation

/// The farm's rendering pipeline as separate tasks: each video chunk and each audio block
/// rendered by a fresh renderer into a file of its own, then the files joined.
///
/// Workers run exactly `renderSegment` and `renderAudioBlock`, the coordinator's joins and
/// `LocalRender` call the same `SegmentJoiner`; running them here, one after another, is how
/// tests prove that chunking never changes the output.
public struct ChunkedRender {
    public let loaded: LoadedProject
    /// Folder for segment and audio block files.
    public let workDirectory: URL
    public var encoderThreads = 1
    public var decoderThreads = 1
    public var cancellation: StopFlag?
    /// Sync results to disk (a worker's scratch copies need not be: the coordinator syncs its own).
    public var durable = true
    /// The programme's gain for a project with a loudness target, measured first (`LoudnessPass`).
    public var programmeGain: ProgrammeGain?

    public init(loaded: LoadedProject, workDirectory: URL) {
        self.loaded = loaded
        self.workDirectory = workDirectory
    }

    /// The file name of a chunk's segment or of an audio block. Both are MOV: it carries every
    /// export codec (H.264, HEVC, FFV1, PCM, AAC) with exact timestamps.
    public static func fileName(kind: ChunkKind, index: Int) -> String {
        switch kind {
        case .video: String(format: "segment-%06d.mov", index)
        case .audio: String(format: "audio-%06d.mov", index)
        case .loudness: String(format: "loudness-%06d.json", index)
        }
    }

    public func url<Span: WorkSpan>(of span: Span) -> URL {
        workDirectory.appendingPathComponent(Self.fileName(kind: Span.kind, index: span.index))
    }

    /// The segment or block files of `spans`, for the joiner.
    public func segments<Span: WorkSpan>(_ spans: [Span]) -> [SegmentJoiner.Segment<Span>] {
        SegmentJoiner.segments(spans, in: workDirectory)
    }

    /// Every timeline sample of the project.
    public var samples: Range<Int64> { loaded.project.output.samples(ofFrames: 0..<loaded.project.frameCount) }

    /// Renders one chunk's frames, video only, with a fresh encoder.
    public func renderSegment(_ chunk: Chunk, progress: (RenderProgress) -> Void = { _ in }) throws -> URL {
        try renderMeasuredSegment(chunk, progress: progress).url
    }

    /// Renders one chunk as `renderSegment` does, and says which of its frames are black
    /// (timeline frames), for the QC report.
    public func renderMeasuredSegment(_ chunk: Chunk, progress: (RenderProgress) -> Void = { _ in }) throws
        -> (url: URL, black: [FrameRun])
    {
        let url = url(of: chunk)
        let black = try TimelineRenderer(loaded: loaded, configuration: configuration(video: true))
            .render(frames: chunk.frames, to: url, progress: progress)
        return (url, black)
    }

    /// Measures one audio block for the programme's loudness (`LoudnessPass`) into a JSON file.
    /// `trial`: the gain of a second pass, measured through the limiter.
    public func measureAudioBlock(_ block: AudioBlock, of render: Range<Int64>? = nil, trial: ProgrammeGain? = nil)
        throws -> URL
    {
        let measured = try LoudnessPass.measure(
            loaded: loaded, block: block, render: render ?? samples, trial: trial, cancellation: cancellation)
        let url = workDirectory.appendingPathComponent(Self.fileName(kind: .loudness, index: block.index))
        let file = AtomicFile(destination: url)
        do {
            try JSONEncoder().encode(measured).write(to: file.temporary)
            try file.commit(durable: durable)
        } catch {
            file.discard()
            throw error
        }
        return url
    }

    /// Mixes and encodes one audio block of a render covering timeline samples `render` (by
    /// default the whole timeline, as on a farm).
    public func renderAudioBlock(_ block: AudioBlock, of render: Range<Int64>? = nil) throws -> URL {
        let url = url(of: block)
        try TimelineRenderer(loaded: loaded, configuration: configuration(video: false))
            .render(audioBlock: block, of: render ?? samples, gain: programmeGain, to: url)
        return url
    }

    /// The container of a chunk's file: MOV carries every export codec with exact timestamps
    /// (image frames too), except AV1, which FFmpeg writes only in MP4's flavour of the format.
    public static func segmentContainer(holdingAV1: Bool) -> ExportSettings.Container {
        holdingAV1 ? .mp4 : .mov
    }

    private func configuration(video: Bool) -> TimelineRenderer.Configuration {
        var configuration = TimelineRenderer.Configuration()
        configuration.includeVideo = video
        configuration.includeAudio = !video
        let export = loaded.project.export
        configuration.container = Self.segmentContainer(
            holdingAV1: video && export.encodes(of: loaded.project.output).contains { $0.video.codec == .av1 })
        configuration.encoderThreads = encoderThreads
        configuration.decoderThreads = decoderThreads
        configuration.cancellation = cancellation
        configuration.durable = durable
        return configuration
    }

    public func join(
        chunks: [Chunk], blocks: [AudioBlock], container: ExportSettings.Container? = nil, to destination: URL
    ) throws {
        try OutputJoin.join(
            export: loaded.project.export, output: loaded.project.output, segments: segments(chunks),
            audio: segments(blocks), container: container ?? loaded.project.export.container,
            subtitles: loaded.project.subtitleTracks(
                captions: loaded.captions, frames: (chunks.first?.start ?? 0)..<(chunks.last?.end ?? 0)),
            to: destination)
    }

    /// Plans, renders every chunk and audio block, and joins them.
    public func renderAll(size: ChunkPlanner.Size, to destination: URL) throws {
        var measured = self
        measured.programmeGain = try LoudnessPass.gain(loaded: loaded, render: samples, cancellation: cancellation)
        let chunks = loaded.project.videoChunks(size)
        for chunk in chunks { _ = try renderSegment(chunk) }
        let blocks = loaded.project.audioBlocks()
        for block in blocks { _ = try measured.renderAudioBlock(block) }
        try join(chunks: chunks, blocks: blocks, to: destination)
    }
}
