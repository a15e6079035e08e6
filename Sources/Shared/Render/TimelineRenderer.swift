import CFFmpeg
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
    public func render(frames: Range<Int64>, to destination: URL, progress: (RenderProgress) -> Void = { _ in }) throws {
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
        var video: (encoder: MediaEncoder, stream: Int32, frame: Frame)?
        var audio: AudioTrackWriter?
        let settings = project.export.video
        let makeEncoder = {
            try MediaEncoder.video(
                output: output, settings: settings, threads: settings.encodesPerGOP ? 1 : self.configuration.encoderThreads,
                globalHeader: muxer.needsGlobalHeader)
        }
        if configuration.includeVideo {
            let encoder = try makeEncoder()
            video = (encoder, try muxer.addStream(for: encoder), try Self.videoFrame(output))
        }
        if configuration.includeAudio {
            let encoder = try MediaEncoder.audio(
                output: output.audio, settings: project.export.audio, globalHeader: muxer.needsGlobalHeader)
            let stream = try muxer.addStream(for: encoder)
            let first = AudioMixer.sampleIndex(ofFrame: frames.lowerBound, output: output)
            audio = try AudioTrackWriter(encoder: encoder, stream: stream, mixer: AudioMixer(loaded: loaded), start: first)
        }
        try muxer.start()
        let clock = ContinuousClock()
        let started = clock.now
        let compositor = configuration.includeVideo ? Compositor(loaded: loaded, decoderThreads: configuration.decoderThreads) : nil
        for n in frames {
            if configuration.cancellation?.isRaised == true { throw RenderCancelled() }
            if var current = video, let compositor {
                if settings.encodesPerGOP, n != frames.lowerBound, n % Int64(settings.gop) == 0 {
                    // A new GOP of the timeline: finish the last encoder, start a fresh one.
                    try current.encoder.encode(nil) { packet in
                        try muxer.write(packet, stream: current.stream, from: current.encoder.timeBase)
                    }
                    current.encoder = try makeEncoder()
                    video = current
                }
                let video = current
                let canvas = try compositor.render(frame: n)
                try FFmpegError.check(av_frame_make_writable(video.frame.pointer), "frame buffer")
                Self.copy(canvas, into: video.frame.pointer)
                video.frame.pointer.pointee.pts = n - frames.lowerBound
                try video.encoder.encode(video.frame.pointer) { packet in
                    try muxer.write(packet, stream: video.stream, from: video.encoder.timeBase)
                }
            }
            try audio?.encode(upTo: AudioMixer.sampleIndex(ofFrame: n + 1, output: output), muxer: muxer, final: n + 1 == frames.upperBound)
            progress(RenderProgress(framesDone: n + 1 - frames.lowerBound, frameCount: Int64(frames.count), elapsed: clock.now - started))
        }
        if let video {
            try video.encoder.encode(nil) { packet in try muxer.write(packet, stream: video.stream, from: video.encoder.timeBase) }
        }
        try audio?.drain(muxer: muxer)
        try muxer.finish()
    }

    private static func videoFrame(_ output: OutputSettings) throws -> Frame {
        let frame = Frame()
        frame.pointer.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        frame.pointer.pointee.width = Int32(output.width)
        frame.pointer.pointee.height = Int32(output.height)
        try FFmpegError.check(av_frame_get_buffer(frame.pointer, 0), "allocate video frame")
        return frame
    }

    private static func copy(_ picture: Picture, into frame: UnsafeMutablePointer<AVFrame>) {
        let data = frame.pointee.data
        let strides = frame.pointee.linesize
        av_image_copy_plane(data.0, strides.0, picture.planes[0], picture.strides[0], Int32(picture.width), Int32(picture.height))
        av_image_copy_plane(data.1, strides.1, picture.planes[1], picture.strides[1], Int32(picture.width / 2), Int32(picture.height / 2))
        av_image_copy_plane(data.2, strides.2, picture.planes[2], picture.strides[2], Int32(picture.width / 2), Int32(picture.height / 2))
    }
}
