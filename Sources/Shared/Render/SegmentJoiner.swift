import FarmCore
import FarmMedia
import Foundation

/// Joins chunk segments (video only, each starting at a keyframe) and the audio blocks (sound
/// only, see `AudioBlocks`) into the final file by stream copy, in-process.
///
/// Every video packet's timestamps are rebuilt from its chunk's first frame index and the output
/// frame duration: the packet's position inside its segment is counted in frames, then offset by
/// the chunk start. Container durations (rounded in MP4) are never trusted, so nothing drifts at
/// the seams. Each segment must hold exactly its chunk's frame count, else the join fails.
/// Audio packets are timed in samples from their block's first sample (`AudioBlockSequence`).
public enum SegmentJoiner {
    /// A video chunk's segment (`Segment<Chunk>`, frames) or an audio block's file
    /// (`Segment<AudioBlock>`, samples).
    public struct Segment<Span: WorkSpan>: Sendable {
        public var url: URL
        public var span: Span

        public init(url: URL, span: Span) {
            self.url = url
            self.span = span
        }
    }

    /// The files of `spans` in `folder`, by the names `ChunkedRender.fileName` gives them: a
    /// worker's scratch folder and a job's folder hold them alike.
    public static func segments<Span: WorkSpan>(_ spans: [Span], in folder: URL) -> [Segment<Span>] {
        spans.map {
            Segment(
                url: folder.appendingPathComponent(ChunkedRender.fileName(kind: Span.kind, index: $0.index)), span: $0)
        }
    }

    /// Writes `destination` atomically from `segments` (in frame order), `audio` (audio blocks
    /// in sample order; none for a silent file) and `subtitles`, each a soft subtitle stream
    /// (the project's cues: workers never make them). `videoStream` is the rendition: the
    /// segments' n-th video stream.
    public static func join(
        segments: [Segment<Chunk>], audio: [Segment<AudioBlock>], fps: Rational, sampleRate: Int,
        container: ExportSettings.Container, subtitles: [SubtitleTrack] = [], videoStream: Int = 0,
        to destination: URL
    ) throws {
        let file = AtomicFile(destination: destination)
        do {
            try join(
                segments: segments, audio: audio, fps: fps, sampleRate: sampleRate, subtitles: subtitles,
                videoStream: videoStream, into: try Muxer(path: file.temporary.path, container: container))
            try file.commit()
        } catch {
            file.discard()
            throw error
        }
    }

    /// Each part must start where the one before it ends.
    static func checkContiguous<Span>(_ parts: [Segment<Span>], _ what: String) throws {
        for (previous, next) in zip(parts, parts.dropFirst()) where previous.span.end != next.span.start {
            let (before, after) = (previous.span.start..<previous.span.end, next.span.start..<next.span.end)
            throw FFmpegError(operation: "join", message: "\(what) are not contiguous: \(before) then \(after)")
        }
    }

    /// Joins into `muxer`, which has no streams yet, and finishes it.
    static func join(
        segments: [Segment<Chunk>], audio: [Segment<AudioBlock>], fps: Rational, sampleRate: Int,
        subtitles: [SubtitleTrack], videoStream: Int, into muxer: Muxer
    ) throws {
        guard let first = segments.first else { throw FFmpegError(operation: "join", message: "no segments") }
        try checkContiguous(segments, "segments")
        try checkContiguous(audio, "audio blocks")
        let frameBase = Rational(fps.denominator, fps.numerator)
        let videoInput = try DemuxedStream(path: first.url.path, kind: .video, ordinal: videoStream)
        let videoOut = try muxer.addStream(
            copying: videoInput, timeBase: frameBase, frameRate: fps, colour: VideoColour(writtenIn: videoInput))
        var audioInput: AudioBlockSequence?
        var audioStream = -1
        if !audio.isEmpty {
            let input = try AudioBlockSequence(blocks: audio, sampleRate: sampleRate)
            audioStream = try muxer.addStream(copying: input.first, timeBase: input.timeBase, frameRate: nil)
            audioInput = input
        }
        let subtitleStreams = try subtitles.map {
            try muxer.addSubtitleStream(language: $0.language, timeBase: frameBase)
        }
        try muxer.start()
        // Cues are interleaved by their first frame, as sound is by time.
        var nextCue = [Int](repeating: 0, count: subtitles.count)
        func writeCues(startingBefore frame: Int64?) throws {
            for (track, subtitle) in subtitles.enumerated() {
                while nextCue[track] < subtitle.cues.count {
                    let cue = subtitle.cues[nextCue[track]]
                    if let frame, frame <= cue.frames.lowerBound { break }
                    try muxer.writeSubtitle(
                        cue.text, start: cue.frames.lowerBound, duration: Int64(cue.frames.count),
                        stream: subtitleStreams[track], from: frameBase)
                    nextCue[track] += 1
                }
            }
        }
        let packet = Packet()
        // Audio keeps its own packet: one read ahead waits here while video segments are copied.
        let audioPacket = Packet()
        var pendingAudio = false
        // Audio is interleaved by time: before each segment, copy audio up to that segment's end.
        func copyAudio(until seconds: Rational?) throws {
            guard let input = audioInput else { return }
            while true {
                if !pendingAudio {
                    guard try input.read(into: audioPacket) else { return }
                    pendingAudio = true
                }
                if let seconds, let stamp = audioPacket.pts ?? audioPacket.dts,
                    seconds < Rational(stamp) * input.timeBase
                {
                    return
                }
                try muxer.write(audioPacket, stream: audioStream, from: input.timeBase)
                audioPacket.unref()
                pendingAudio = false
            }
        }
        for segment in segments {
            let input =
                segment.url == first.url
                ? videoInput : try DemuxedStream(path: segment.url.path, kind: .video, ordinal: videoStream)
            let toFrames = input.framesPerTick(fps: fps)
            var count: Int64 = 0
            try copyAudio(until: Rational(segment.span.end) / fps)
            try writeCues(startingBefore: segment.span.end)
            while try input.read(into: packet) {
                guard packet.placeOnFrameGrid(framesPerTick: toFrames, first: segment.span.start) else {
                    throw FFmpegError(
                        operation: "join \(segment.url.lastPathComponent)", message: "packet without timestamp")
                }
                try muxer.write(packet, stream: videoOut, from: frameBase)
                packet.unref()
                count += 1
            }
            guard count == segment.span.frameCount else {
                throw FFmpegError(
                    operation: "join \(segment.url.lastPathComponent)",
                    message: "holds \(count) frames, chunk \(segment.span.index) needs \(segment.span.frameCount)")
            }
        }
        try copyAudio(until: nil)
        try writeCues(startingBefore: nil)
        try muxer.finish()
    }
}
