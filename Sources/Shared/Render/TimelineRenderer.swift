import FarmCore
import FarmMedia
import Foundation

/// A render abandoned through `Configuration.cancellation`.
public struct RenderCancelled: Error, CustomStringConvertible {
    public var description: String { "cancelled" }
}

/// Progress of a render, reported after every frame.
public struct RenderProgress: Sendable {
    public var framesDone: Int64
    public var frameCount: Int64
    public var elapsed: Duration

    public init(framesDone: Int64, frameCount: Int64, elapsed: Duration) {
        self.framesDone = framesDone
        self.frameCount = frameCount
        self.elapsed = elapsed
    }
}

/// Renders a range of a project's output frames, and/or its sound, into a file.
///
/// A farm worker renders one chunk's frames with `includeAudio` off, or one audio block with
/// `render(audioBlock:of:to:)`; tests and tools render a whole range with both in one pass.
public final class TimelineRenderer {
    public struct Configuration: Sendable {
        /// Encoder threads (0 lets the encoder choose).
        public var encoderThreads: Int = 0
        /// Decoder threads per video source.
        public var decoderThreads: Int = 1
        public var includeVideo: Bool = true
        public var includeAudio: Bool = true
        /// The container; nil takes the project's `export.container`.
        public var container: ExportSettings.Container?
        /// Sync the file to disk before it appears (off for a worker's scratch segments).
        public var durable = true
        /// Raised by another thread to abandon the render (checked before every frame).
        public var cancellation: StopFlag?

        public init() {}
    }

    public let loaded: LoadedProject
    public let configuration: Configuration

    public init(loaded: LoadedProject, configuration: Configuration = Configuration()) {
        self.loaded = loaded
        self.configuration = configuration
    }

    /// Renders output frames `frames` (timestamps in the file start at 0) to `destination`,
    /// which appears only once complete. The sound, when included, is the audio blocks of the
    /// frames' samples.
    /// Returns the runs of frames that are black by `blackdetect`'s rule, measured on the
    /// composited pictures the encoder takes (`BlackFrameScan.isBlack`).
    @discardableResult
    public func render(frames: Range<Int64>, to destination: URL, progress: (RenderProgress) -> Void = { _ in }) throws
        -> [FrameRun]
    {
        var black: [Bool] = []
        try write(destination) { muxer in
            black = try renderFrames(frames, muxer: muxer, progress: progress)
        }
        return FrameRun.runs(of: black, from: frames.lowerBound)
    }

    /// Renders one audio block (`AudioBlocks`) of a render covering timeline samples `render`,
    /// sound only, to `destination`: a farm's audio block. `gain` is the programme's when the
    /// project has a loudness target (`LoudnessPass`), measured before any block is encoded.
    public func render(
        audioBlock block: AudioBlock, of render: Range<Int64>, gain: ProgrammeGain?, to destination: URL
    ) throws {
        if loaded.project.export.audio.loudness != nil, gain == nil {
            throw LoudnessPass.Unmeasured(block: block.index)
        }
        try write(destination, movieTimescale: loaded.project.output.audio.sampleRate) { muxer in
            let audio = try AudioTrackWriter(
                loaded: loaded, blocks: [block], render: render, gain: gain, muxer: muxer)
            try muxer.start()
            try audio.finish(muxer: muxer, cancellation: configuration.cancellation)
        }
    }

    /// Runs `body` on a muxer writing a temporary file that becomes `destination` when done.
    private func write(_ destination: URL, movieTimescale: Int? = nil, _ body: (Muxer) throws -> Void) throws {
        let file = AtomicFile(destination: destination)
        do {
            let muxer = try Muxer(
                path: file.temporary.path, container: configuration.container ?? loaded.project.export.container,
                movieTimescale: movieTimescale)
            try body(muxer)
            try muxer.finish()
            try file.commit(durable: configuration.durable)
        } catch {
            file.discard()
            throw error
        }
    }

    /// Returns, for each frame encoded, whether it is black.
    private func renderFrames(_ frames: Range<Int64>, muxer: Muxer, progress: (RenderProgress) -> Void) throws
        -> [Bool]
    {
        var black: [Bool] = []
        let project = loaded.project
        let output = project.output
        // One stream per encode (`ExportSettings.encodes`), in order: each rendition's encoder
        // takes the same composited canvas.
        let videos =
            try configuration.includeVideo
            ? project.export.encodes(of: output).map {
                try VideoTrackWriter(
                    output: $0.output(output), settings: $0.video, threads: configuration.encoderThreads, muxer: muxer)
            } : []
        var audio: AudioTrackWriter?
        if configuration.includeAudio {
            let blocks = project.audioBlocks(ofFrames: frames)
            if !blocks.isEmpty {
                let render = output.samples(ofFrames: frames)
                // Normalized to a target: the whole range measured first, as a farm does.
                let gain = try LoudnessPass.gain(
                    loaded: loaded, render: render, cancellation: configuration.cancellation)
                audio = try AudioTrackWriter(loaded: loaded, blocks: blocks, render: render, gain: gain, muxer: muxer)
            }
        }
        try muxer.start()
        let clock = ContinuousClock()
        let started = clock.now
        let composited =
            configuration.includeVideo
            ? CompositedFrames(
                compositor: Compositor(loaded: loaded, decoderThreads: configuration.decoderThreads), frames: frames,
                cancellation: configuration.cancellation)
            : nil
        defer { composited?.stop() }
        for n in frames {
            if configuration.cancellation?.isRaised == true { throw RenderCancelled() }
            // Sound goes a block ahead of the pictures; the muxer interleaves them.
            try audio?.encode(
                upTo: output.sampleIndex(ofFrame: n + 1), muxer: muxer, cancellation: configuration.cancellation)
            if !videos.isEmpty, let composited {
                guard let picture = try composited.next() else { throw RenderCancelled() }
                black.append(BlackFrameScan.isBlack(picture))
                for writer in videos {
                    try writer.encode(picture, timelineFrame: n, first: frames.lowerBound, muxer: muxer)
                }
                composited.recycle(picture)
            }
            // Encoded frames, not composited ones: the encoder may hold many it has not encoded.
            // Every rendition's: the slowest encoder's count.
            progress(
                RenderProgress(
                    framesDone: videos.map(\.framesWritten).min() ?? n + 1 - frames.lowerBound,
                    frameCount: Int64(frames.count), elapsed: clock.now - started))
        }
        for writer in videos { try writer.drain(muxer: muxer) }
        if let written = videos.map(\.framesWritten).min() {
            progress(RenderProgress(framesDone: written, frameCount: Int64(frames.count), elapsed: clock.now - started))
        }
        try audio?.finish(muxer: muxer, cancellation: configuration.cancellation)
        return black
    }
}
