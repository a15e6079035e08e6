/// One unit of a job's work, in its own unit: a video chunk spans output frames, an audio block
/// timeline samples. Rows, assignments and views carry this, so a count of one is never read as
/// the other.
public enum WorkItem: Sendable, Hashable {
    case video(Chunk)
    case audio(AudioBlock)
    /// An audio block measured for the programme's loudness (`LoudnessPass`), before any block
    /// of a job with a loudness target is encoded.
    case loudness(AudioBlock)

    public var kind: ChunkKind {
        switch self {
        case .video: .video
        case .audio: .audio
        case .loudness: .loudness
        }
    }

    public var index: Int {
        switch self {
        case .video(let chunk): chunk.index
        case .audio(let block), .loudness(let block): block.index
        }
    }

    /// Its span in its own unit (frames or samples), for the places that only store or compare it.
    public var start: Int64 {
        switch self {
        case .video(let chunk): chunk.start
        case .audio(let block), .loudness(let block): block.start
        }
    }

    public var end: Int64 {
        switch self {
        case .video(let chunk): chunk.end
        case .audio(let block), .loudness(let block): block.end
        }
    }

    /// Builds the item of `kind` spanning `start..<end` in that kind's unit.
    public init(kind: ChunkKind, index: Int, start: Int64, end: Int64) {
        switch kind {
        case .video: self = .video(Chunk(index: index, start: start, end: end))
        case .audio: self = .audio(AudioBlock(index: index, start: start, end: end))
        case .loudness: self = .loudness(AudioBlock(index: index, start: start, end: end))
        }
    }

    /// How messages name it: "chunk 3" or "audio block 3".
    public var name: String {
        switch self {
        case .video(let chunk): "chunk \(chunk.index)"
        case .audio(let block): "audio block \(block.index)"
        case .loudness(let block): "loudness block \(block.index)"
        }
    }

    /// How every log line, command and page names an attempt at it: "job 3 chunk 22 attempt 1".
    public func label(job: Int64, attempt: Int) -> String {
        "job \(job) \(name) attempt \(attempt)"
    }
}

/// A span of a job's work in its own unit: `Chunk` (output frames) or `AudioBlock` (timeline
/// samples). What plans, keys and inputs need of either, so each is written once for both.
public protocol WorkSpan: Sendable, Hashable {
    static var kind: ChunkKind { get }
    var index: Int { get }
    var start: Int64 { get }
    var end: Int64 { get }
    var item: WorkItem { get }
    /// The timeline time its render reads (an audio block's pre-roll and tail included).
    func timeRead(in output: OutputSettings) -> Range<Rational>
    /// The timeline time of its first frame or sample.
    func origin(in output: OutputSettings) -> Rational
}

extension Chunk: WorkSpan {
    public static var kind: ChunkKind { .video }
    public var item: WorkItem { .video(self) }

    public func timeRead(in output: OutputSettings) -> Range<Rational> {
        output.time(ofFrame: start)..<output.time(ofFrame: end)
    }

    public func origin(in output: OutputSettings) -> Rational { output.time(ofFrame: start) }
}

extension AudioBlock: WorkSpan {
    public static var kind: ChunkKind { .audio }
    public var item: WorkItem { .audio(self) }

    public func timeRead(in output: OutputSettings) -> Range<Rational> {
        AudioBlocks.timeSpan(of: self, sampleRate: output.audio.sampleRate)
    }

    public func origin(in output: OutputSettings) -> Rational {
        Rational(start) / Rational(Int64(output.audio.sampleRate))
    }
}
