import CFFmpeg
import FarmCore

/// Gives the picture a video file shows at a media time, decoding forward and seeking only when
/// it must.
///
/// The rule that maps time to picture: media time `t` shows the last frame whose timestamp is at
/// or before `t`, with a tolerance of 1/8 of the stream's nominal frame period for containers
/// that round timestamps (Matroska stores milliseconds). Variable-frame-rate and any-rate sources
/// follow the same rule. Before the first frame, the first frame shows; after the last, the last.
///
/// Seeking goes to the keyframe at or before the wanted time and decodes forward, so a frame's
/// pixels never depend on where decoding started: the property chunked rendering rests on.
/// Media time 0 is the container's start (`MediaInput.startTimestamp`), so a stream keeps its
/// offset against the file's other streams.
public final class VideoReader {
    private let input: MediaInput
    private var current = Frame()
    private var next = Frame()
    private var hasCurrent = false
    private var hasNext = false
    private var finished = false
    /// The timestamp of the keyframe decoding restarted from at the last seek.
    private var landing: Int64 = .min
    private let tolerance: Rational
    private let timeBase: Rational
    /// Forward gaps longer than this seek instead of decoding every frame in between.
    private let seekAhead: Int64
    /// Changes whenever the picture handed out changes (it is the frame's timestamp); lets
    /// callers cache scaled copies.
    public private(set) var pictureIdentity: Int64 = .min
    /// Frames decoded since the last seek, oldest first, as references (not copies), kept once
    /// playback has gone backwards: reverse play then decodes each GOP about once instead of
    /// once per frame. At most `recentCapacity` frames, so memory stays bounded.
    private var recent: [Frame] = []
    private var keepsRecent = false
    static let recentCapacity = 64

    public init(path: String, info: MediaInfo, threads: Int = 1, reads: MediaReads? = nil) throws {
        input = try MediaInput(path: path, stream: .video, threads: threads, reads: reads)
        timeBase = input.timeBase
        let period = info.frameRate.map { Rational($0.denominator, $0.numerator) } ?? Rational(1, 1000)
        tolerance = period / Rational(8)
        seekAhead = (Rational(3) / timeBase).floor
    }

    /// The picture shown at media time `time` (seconds from the media's start), valid until the
    /// next call.
    public func frame(at time: Rational) throws -> SourceImage {
        let limit = ((time + tolerance) / timeBase).floor + input.startTimestamp
        if hasCurrent, timestamp(current) > limit {
            keepsRecent = true
            if let frame = recentFrame(at: limit) {
                pictureIdentity = timestamp(frame)
                return SourceImage(frame: frame.pointer)
            }
        }
        if !hasCurrent || timestamp(current) > limit
            || (hasNext && timestamp(next) <= limit && limit - timestamp(current) > seekAhead)
        {
            try seek(to: limit)
        }
        while true {
            if !hasNext {
                if finished { break }
                hasNext = try input.decodeNext(into: next)
                if !hasNext {
                    finished = true
                    break
                }
                // A picture before the keyframe decoding restarted from may lack its references.
                if timestamp(next) < landing {
                    next.unref()
                    hasNext = false
                    continue
                }
            }
            guard timestamp(next) <= limit else { break }
            promoteNext()
        }
        if !hasCurrent {
            guard hasNext else {
                throw FFmpegError(operation: input.path, message: "no picture at \(time.seconds) s could be decoded")
            }
            promoteNext()
        }
        return SourceImage(frame: current.pointer)
    }

    private func promoteNext() {
        swap(&current, &next)
        hasCurrent = true
        hasNext = false
        next.unref()
        pictureIdentity = timestamp(current)
        guard keepsRecent else { return }
        let kept = Frame()
        guard av_frame_ref(kept.pointer, current.pointer) >= 0 else { return }
        recent.append(kept)
        if recent.count > Self.recentCapacity { recent.removeFirst() }
    }

    /// The kept frame shown at `limit`: the last one at or before it, when a later kept frame
    /// proves no other frame lies between.
    private func recentFrame(at limit: Int64) -> Frame? {
        guard let later = recent.firstIndex(where: { timestamp($0) > limit }), later > 0 else { return nil }
        return recent[later - 1]
    }

    /// Seeks so that the first picture decoded is a keyframe at or before `limit`, kept as
    /// `next`. A packet's flag and stamp only come near: in a program stream a keyframe's packet
    /// can carry another picture's stamp, so the decoded keyframe's own timestamp decides, and
    /// pictures decoded before it (leading B-frames without their references) are dropped.
    private func seek(to limit: Int64) throws {
        recent.removeAll()
        current.unref()
        hasCurrent = false
        var target = limit
        var step = Swift.max(1, (Rational(1) / timeBase).floor)
        while true {
            try input.seek(toTimestamp: target)
            next.unref()
            hasNext = false
            finished = false
            while try input.decodeNext(into: next) {
                if cffmpeg_frame_is_key(next.pointer) != 0 {
                    hasNext = true
                    break
                }
                next.unref()
            }
            guard hasNext else {
                // A decoder that flags no keyframe: take the first picture after the seek.
                try input.seek(toTimestamp: target)
                hasNext = try input.decodeNext(into: next)
                finished = !hasNext
                landing = .min
                return
            }
            landing = timestamp(next)
            if landing <= limit || input.seekedFromStart { return }
            target = Swift.min(target, landing) - step
            step *= 2
        }
    }

    private func timestamp(_ frame: Frame) -> Int64 {
        let best = frame.pointer.pointee.best_effort_timestamp
        return best == cffmpeg_nopts() ? frame.pointer.pointee.pts : best
    }
}
