import CFFmpeg
import FarmCore

/// Gives the picture numbered frames show at a media time: frame `n` of the run is media time
/// `n / rate`, as ffmpeg's `image2` demuxer stamps it (`-framerate RATE -start_number FIRST`),
/// and a time shows the last frame at or before it, within 1/8 of a frame (`VideoReader`'s
/// rule). Each picture is its own file, decoded alone: no seek, no picture before it, so a
/// frame's pixels cannot depend on where a chunk starts.
public final class ImageSequenceReader {
    private let pattern: FramePattern
    private let first: Int
    private let count: Int64
    private let rate: Rational
    private let threads: Int
    /// Holds each frame read to the job's pin (`MediaReads.checkFrame`); nil reads as is.
    private let reads: MediaReads?
    private let current = Frame()
    /// The index (from 0) of the frame in `current`; it is the picture's identity too.
    public private(set) var pictureIdentity: Int64 = .min

    public init(pattern: FramePattern, info: MediaInfo, threads: Int = 1, reads: MediaReads? = nil) throws {
        guard let first = info.firstFrame, let rate = info.frameRate, let duration = info.duration else {
            throw FFmpegError(operation: pattern.path(0), message: "not probed as numbered frames")
        }
        self.pattern = pattern
        self.first = first
        self.rate = rate
        self.threads = threads
        self.reads = reads
        count = Swift.max(1, (duration * rate).rounded)
    }

    /// The picture shown at media time `time`, valid until the next call.
    public func frame(at time: Rational) throws -> SourceImage {
        let index = Swift.min(count - 1, Swift.max(0, ((time + Rational(1, 8) / rate) * rate).floor))
        if index != pictureIdentity {
            try reads?.checkFrame(first + Int(index), of: pattern)
            let path = pattern.path(first + Int(index))
            let input = try MediaInput(path: path, stream: .video, threads: threads)
            current.unref()
            guard try input.decodeNext(into: current) else {
                throw FFmpegError(operation: path, message: "no picture could be decoded")
            }
            pictureIdentity = index
        }
        return SourceImage(frame: current.pointer)
    }
}
