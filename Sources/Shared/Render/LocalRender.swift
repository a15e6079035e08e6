import FarmCore
import FarmMedia
import Foundation

/// `farm render --local`: a farm's tasks — video chunks and audio blocks — rendered by a pool of
/// threads in this process, then joined. Each task is rendered exactly as a farm worker renders
/// it, so the file is the farm's, and the same whatever the number of threads.
public struct LocalRender {
    public struct Configuration: Sendable {
        /// Tasks rendered at once.
        public var threads = ProcessInfo.processInfo.activeProcessorCount
        /// Decoder threads per video source (1: the pool already keeps every core busy).
        public var decoderThreads = 1
        /// Encoder threads per task, for exports not encoded a GOP at a time.
        public var encoderThreads = 1
        /// The container; nil takes the project's `export.container`.
        public var container: ExportSettings.Container?
        /// Raised by another thread to abandon the render.
        public var cancellation: StopFlag?

        public init() {}
    }

    public let loaded: LoadedProject
    public let configuration: Configuration

    public init(loaded: LoadedProject, configuration: Configuration = Configuration()) {
        self.loaded = loaded
        self.configuration = configuration
    }

    /// One task of the pool.
    private enum Task {
        case segment(Chunk)
        case audio(AudioBlock)
    }

    /// Renders output frames `frames` to `destination`, which appears only once complete.
    /// `progress` is called on this thread about ten times a second.
    public func render(frames: Range<Int64>, to destination: URL, progress: (RenderProgress) -> Void = { _ in }) throws
    {
        let scratch = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).parts-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let stop = StopFlag()
        var chunked = ChunkedRender(loaded: loaded, workDirectory: scratch)
        chunked.encoderThreads = configuration.encoderThreads
        chunked.decoderThreads = configuration.decoderThreads
        chunked.cancellation = stop
        chunked.durable = false
        let chunks = plan(frames)
        let samples = loaded.project.output.samples(ofFrames: frames)
        let blocks = loaded.project.audioBlocks(ofFrames: frames)
        chunked.programmeGain = try measure(blocks, chunked: chunked, samples: samples, stop: stop)
        // Sound first: its blocks are short, and the pictures then even out the threads' ends.
        let tasks = blocks.map(Task.audio) + chunks.map(Task.segment)
        let stills = Locked<[OutputStills.Key: StillFrame]>([:])
        let rendering = chunked
        try run(
            tasks, chunked: chunked, samples: samples, frameCount: Int64(frames.count), stop: stop, progress: progress
        ) { chunk in
            // Each segment's stills on the thread that rendered it, not one by one after the join.
            let made = try makeStills(of: chunk, in: rendering, frames: frames)
            stills.withLock { $0.merge(made) { kept, _ in kept } }
        }
        try OutputJoin.join(
            export: loaded.project.export, output: loaded.project.output, segments: chunked.segments(chunks),
            audio: chunked.segments(blocks), container: configuration.container ?? loaded.project.export.container,
            subtitles: loaded.project.subtitleTracks(captions: loaded.captions, frames: frames), to: destination)
        let output = loaded.project.output
        try OutputStills.write(
            loaded.project.export, segments: chunked.segments(chunks), width: output.width, height: output.height,
            fps: output.fps, made: stills.withLock { $0 }, beside: destination)
    }

    /// The stills (`export.poster`, `export.thumbnails`, `export.preview`) that `chunk`'s segment
    /// holds, for an output of `frames`.
    private func makeStills(of chunk: Chunk, in chunked: ChunkedRender, frames: Range<Int64>) throws
        -> [OutputStills.Key: StillFrame]
    {
        let (export, output) = (loaded.project.export, loaded.project.output)
        let count = Int64(frames.count)
        let inside = (chunk.start - frames.lowerBound)..<(chunk.end - frames.lowerBound)
        let keys = OutputStills.allKeys(export, frames: count, fps: output.fps, width: output.width, in: inside)
        guard !keys.isEmpty, let segment = chunked.segments([chunk]).first else { return [:] }
        return try OutputStills.make(
            keys, in: segment, outputStart: frames.lowerBound, width: output.width, height: output.height,
            fps: output.fps, video: export.video)
    }

    /// Video chunks of `frames` on the boundaries a farm job's chunks would have (the export's
    /// GOP), about four per thread so the threads finish together.
    private func plan(_ frames: Range<Int64>) -> [Chunk] {
        let perChunk = max(Int64(frames.count) / Int64(max(1, configuration.threads) * 4), 1)
        return loaded.project.videoChunks(.frames(perChunk)).compactMap { chunk -> Chunk? in
            let start = max(chunk.start, frames.lowerBound)
            let end = min(chunk.end, frames.upperBound)
            return start < end ? Chunk(index: chunk.index, start: start, end: end) : nil
        }
    }

    /// A loudness target's first pass: every block measured on the pool's threads, then the
    /// programme's gain, as a farm's coordinator combines them. Nil without a target.
    private func measure(
        _ blocks: [AudioBlock], chunked: ChunkedRender, samples: Range<Int64>, stop: StopFlag
    ) throws -> ProgrammeGain? {
        guard !blocks.isEmpty else { return nil }
        return try LoudnessPass.passes(loaded: loaded, render: samples) { trial in
            let measured = Locked<[BlockLoudness]>([])
            let measure = { (index: Int) in
                let block = try LoudnessPass.measure(
                    loaded: loaded, block: blocks[index], render: samples, trial: trial, cancellation: stop)
                measured.withLock { $0.append(block) }
            }
            try TaskPool.run(blocks.count, threads: configuration.threads, stop: stop, whileWaiting: {}, measure)
            return measured.withLock { $0 }
        }?.gain
    }

    private func run(
        _ tasks: [Task], chunked: ChunkedRender, samples: Range<Int64>, frameCount: Int64, stop: StopFlag,
        progress: (RenderProgress) -> Void, rendered: @escaping @Sendable (Chunk) throws -> Void
    ) throws {
        let framesDone = Locked<[Int: Int64]>([:])
        let clock = ContinuousClock()
        let started = clock.now
        let render = { (index: Int) in
            switch tasks[index] {
            case .audio(let block):
                _ = try chunked.renderAudioBlock(block, of: samples)
            case .segment(let chunk):
                _ = try chunked.renderSegment(chunk) { update in
                    framesDone.withLock { $0[index] = update.framesDone }
                }
                try rendered(chunk)
            }
        }
        let report = {
            if configuration.cancellation?.isRaised == true { stop.raise() }
            let done = framesDone.withLock { $0.values.reduce(0, +) }
            progress(RenderProgress(framesDone: done, frameCount: frameCount, elapsed: clock.now - started))
        }
        do {
            try TaskPool.run(tasks.count, threads: configuration.threads, stop: stop, whileWaiting: report, render)
        } catch  where configuration.cancellation?.isRaised == true {
            throw RenderCancelled()
        }
        if configuration.cancellation?.isRaised == true { throw RenderCancelled() }
        progress(RenderProgress(framesDone: frameCount, frameCount: frameCount, elapsed: clock.now - started))
    }
}
