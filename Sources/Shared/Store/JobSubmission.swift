import FarmCore
import Foundation

/// A job as the submitter describes it: the project document, where its media and output go,
/// and how its timeline is cut into chunks.
public struct JobSubmission: Sendable {
    public var name: String
    public var projectFile: String
    public var projectText: String
    public var mediaRoot: String
    public var outputPath: String
    public var container: ExportSettings.Container
    public var fps: Rational
    public var frameCount: Int64
    public var width: Int
    public var height: Int
    public var priority: Int
    /// Video chunks: ranges of output frames.
    public var chunks: [Chunk]
    /// Audio blocks: ranges of timeline samples (`AudioBlocks`).
    public var audioBlocks: [AudioBlock]
    /// A loudness target's first pass: one row per audio block (`LoudnessPass`); empty without one.
    public var loudnessBlocks: [AudioBlock] = []
    public var sampleRate: Int
    /// The version of each asset the job renders from (`MediaPin`); empty pins nothing.
    public var mediaPins: [String: MediaPin] = [:]
    /// Told once when the job ends: its JSON POSTed, signed with the farm's secret.
    public var notifyURL: String?
    /// Each video chunk's and audio block's key (`ChunkKeys`), in the order of `chunks` and
    /// `audioBlocks`; empty when not computed (then nothing is looked up or kept).
    public var videoKeys: [String] = []
    public var audioKeys: [String] = []
    /// Frames in a GOP of the segment cache (`ChunkGrains.length`), nil when chunks are cached
    /// whole only; and each video chunk's GOPs' keys, in the order of `chunks` (empty for a
    /// chunk of one GOP, or when not computed).
    public var grainLength: Int64?
    public var grainKeys: [[String]] = []
    /// Look every chunk up in the segment cache first (`--no-cache`: false).
    public var useCache = true
    /// The tags a worker must have to render it (`farm submit --requires`), checked (`PoolTags`).
    public var requires: [String] = []
    /// Jobs it waits on (`--after`): none of its chunks is handed out until each is done.
    public var after: [Int64] = []
    /// The `Idempotency-Key` it was submitted with over HTTP, and a digest of the request.
    public var idempotency: (key: String, digest: String)?
    /// The project its keys were made from, when it was read here: chunks planned again
    /// (`spreadUncached`) are keyed from it.
    package var project: Project?

    public init(
        name: String, projectFile: String, projectText: String, mediaRoot: String, outputPath: String,
        container: ExportSettings.Container, fps: Rational, frameCount: Int64, width: Int, height: Int, priority: Int,
        chunks: [Chunk], audioBlocks: [AudioBlock], sampleRate: Int
    ) {
        self.name = name
        self.projectFile = projectFile
        self.projectText = projectText
        self.mediaRoot = mediaRoot
        self.outputPath = outputPath
        self.container = container
        self.fps = fps
        self.frameCount = frameCount
        self.width = width
        self.height = height
        self.priority = priority
        self.chunks = chunks
        self.audioBlocks = audioBlocks
        self.sampleRate = sampleRate
    }

    /// Reads `file` again for its exact text (the workers parse the same bytes), unless given,
    /// and plans chunks.
    public init(
        loaded: LoadedProject, file: String, mediaRoot: URL?, output: URL, container: ExportSettings.Container,
        chunkSize: ChunkPlanner.Size, priority: Int = 0, text: String? = nil
    ) throws {
        let url = URL(fileURLWithPath: file).standardizedFileURL
        let project = loaded.project
        name = url.deletingPathExtension().lastPathComponent
        projectFile = url.path
        // An imported timeline (.otio) goes to the workers as the farm project made from it.
        // `text` when the project came in a request, not a file (the HTTP API).
        projectText =
            try text ?? loaded.mergedText ?? loaded.imported?.text ?? String(contentsOf: url, encoding: .utf8)
        self.mediaRoot = (mediaRoot ?? url.deletingLastPathComponent()).standardizedFileURL.path
        outputPath = output.standardizedFileURL.path
        self.container = container
        fps = project.output.fps
        frameCount = project.frameCount
        width = project.output.width
        height = project.output.height
        self.priority = priority
        self.project = project
        chunks = project.videoChunks(chunkSize)
        sampleRate = project.output.audio.sampleRate
        audioBlocks = project.audioBlocks()
        // One `stat` per asset: what a job costs to pin never grows with what its media weighs.
        mediaPins = try MediaPin.pins(of: project)
        videoKeys = ChunkKeys.keys(of: project, work: chunks, container: container, pins: mediaPins)
        audioKeys = ChunkKeys.keys(of: project, work: audioBlocks, container: container, pins: mediaPins)
        grainLength = ChunkGrains.length(of: project.export, container: container)
        grainKeys = ChunkGrains.keys(of: project, chunks: chunks, container: container, pins: mediaPins)
        if let target = project.export.audio.loudness {
            loudnessBlocks = audioBlocks
            // One gain for the whole programme: a block's sound depends on every block's, so
            // its key covers them all and the target.
            let programme = SHA256.hex(of: audioKeys.joined(separator: ",") + "\(target)")
            audioKeys = audioKeys.map { SHA256.hex(of: $0 + programme) }
        }
    }
}
