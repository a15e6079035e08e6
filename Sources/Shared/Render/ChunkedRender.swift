import FarmCore
import Foundation

/// The farm's rendering pipeline run in one process: each chunk rendered by its own fresh
/// renderer into a segment, the audio rendered once as its own task, then the segments joined.
///
/// Workers run exactly `renderSegment` and `renderAudio`, and the coordinator's joins call the
/// same `SegmentJoiner`. Running them here, one after another, is how tests prove that chunking
/// never changes the output.
public struct ChunkedRender {
    public let loaded: LoadedProject
    /// Folder for segment and audio files.
    public let workDirectory: URL
    public var encoderThreads = 1
    public var cancellation: StopFlag?
    /// Sync results to disk (a worker's scratch copies need not be: the coordinator syncs its own).
    public var durable = true

    public init(loaded: LoadedProject, workDirectory: URL) {
        self.loaded = loaded
        self.workDirectory = workDirectory
    }

    /// The file name of a chunk's segment or of the audio task's result. Both are MOV: it
    /// carries every export codec (H.264, HEVC, FFV1, PCM, AAC) with exact timestamps.
    public static func fileName(kind: ChunkKind, chunk: Chunk) -> String {
        kind == .audio ? "audio.mov" : String(format: "segment-%06d.mov", chunk.index)
    }

    public func segmentURL(_ chunk: Chunk) -> URL {
        workDirectory.appendingPathComponent(Self.fileName(kind: .video, chunk: chunk))
    }

    public var audioURL: URL {
        workDirectory.appendingPathComponent(Self.fileName(kind: .audio, chunk: Chunk(index: 0, start: 0, end: 0)))
    }

    /// Renders one chunk's frames, video only, with a fresh encoder.
    public func renderSegment(_ chunk: Chunk, progress: (RenderProgress) -> Void = { _ in }) throws -> URL {
        var configuration = TimelineRenderer.Configuration()
        configuration.includeAudio = false
        configuration.container = .mov
        configuration.encoderThreads = encoderThreads
        configuration.cancellation = cancellation
        configuration.durable = durable
        let url = segmentURL(chunk)
        try TimelineRenderer(loaded: loaded, configuration: configuration).render(
            frames: chunk.frames, to: url, progress: progress)
        return url
    }

    /// Mixes and encodes the whole timeline's sound once.
    public func renderAudio(progress: (RenderProgress) -> Void = { _ in }) throws -> URL {
        var configuration = TimelineRenderer.Configuration()
        configuration.includeVideo = false
        configuration.container = .mov
        configuration.cancellation = cancellation
        configuration.durable = durable
        try TimelineRenderer(loaded: loaded, configuration: configuration)
            .render(frames: 0..<loaded.project.frameCount, to: audioURL, progress: progress)
        return audioURL
    }

    public func join(chunks: [Chunk], container: ExportSettings.Container? = nil, to destination: URL) throws {
        try SegmentJoiner.join(
            segments: chunks.map { SegmentJoiner.Segment(url: segmentURL($0), chunk: $0) }, audio: audioURL,
            fps: loaded.project.output.fps, container: container ?? loaded.project.export.container, to: destination)
    }

    /// Plans, renders every chunk and the audio, and joins them.
    public func renderAll(size: ChunkPlanner.Size, to destination: URL) throws {
        let project = loaded.project
        let chunks = ChunkPlanner.plan(
            frameCount: project.frameCount, fps: project.output.fps, size: size,
            alignment: project.export.video.chunkAlignment)
        for chunk in chunks { _ = try renderSegment(chunk) }
        _ = try renderAudio()
        try join(chunks: chunks, to: destination)
    }
}
