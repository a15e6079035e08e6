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

/// Renders a range of a project's output frames, and/or its mixed audio, into a file.
///
/// `farm render --local` renders everything in one call; a farm worker renders one chunk's
/// frames with `audio: false`, and the audio task renders `video: false` over the whole timeline.
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
    /// which appears only once complete.
    public func render(frames: Range<Int64>, to destination: URL, progress: (RenderProgress) -> Void = { _ in }) throws
    {
        let file = AtomicFile(destination: destination)
        do {
            try renderUnsafely(frames: frames, to: file.temporary.path, progress: progress)
            try file.commit(durable: configuration.durable)
        } catch {
            file.discard()
            throw error
        }
    }

    private func renderUnsafely(frames: Range<Int64>, to path: String, progress: (RenderProgress) -> Void) throws {
        let project = loaded.project
        let output = project.output
        let muxer = try Muxer(path: path, container: configuration.container ?? project.export.container)
        let video =
            try configuration.includeVideo
            ? VideoTrackWriter(
                output: output, settings: project.export.video, threads: configuration.encoderThreads, muxer: muxer)
            : nil
        var audio: AudioTrackWriter?
        if configuration.includeAudio {
            let encoder = try MediaEncoder.audio(
                output: output.audio, settings: project.export.audio, globalHeader: muxer.needsGlobalHeader)
            let stream = try muxer.addStream(for: encoder)
            let first = AudioMixer.sampleIndex(ofFrame: frames.lowerBound, output: output)
            audio = AudioTrackWriter(encoder: encoder, stream: stream, mixer: AudioMixer(loaded: loaded), start: first)
        }
        try muxer.start()
        let clock = ContinuousClock()
        let started = clock.now
        let compositor =
            configuration.includeVideo ? Compositor(loaded: loaded, decoderThreads: configuration.decoderThreads) : nil
        for n in frames {
            if configuration.cancellation?.isRaised == true { throw RenderCancelled() }
            if let video, let compositor {
                try video.encode(compositor.render(frame: n), timelineFrame: n, first: frames.lowerBound, muxer: muxer)
            }
            try audio?.encode(
                upTo: AudioMixer.sampleIndex(ofFrame: n + 1, output: output), muxer: muxer,
                final: n + 1 == frames.upperBound)
            progress(
                RenderProgress(
                    framesDone: n + 1 - frames.lowerBound, frameCount: Int64(frames.count), elapsed: clock.now - started
                ))
        }
        try video?.drain(muxer: muxer)
        try audio?.drain(muxer: muxer)
        try muxer.finish()
    }
}
