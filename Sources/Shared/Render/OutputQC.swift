import FarmCore
import FarmMedia
import Foundation

/// Measures a finished output for its QC report (`QCReport`): stream parameters from its
/// header, every video packet's timestamp (frames counted, chunk seams checked), every audio
/// packet's (block seams checked), and its sound decoded once, as any player would, for
/// BS.1770 loudness, true peak and silences. Reading is proportional to the programme's
/// length, never to the media it was made from.
public enum OutputQC {
    /// `chunkStarts` and `blockStarts` are the output frames and samples where chunks and
    /// audio blocks begin (the first excluded or not, either way). `blackFrames`, one flag per
    /// output frame, are the workers' measures of the frames they encoded (`FrameRun`); without
    /// them the output's video is decoded for its black frames. `soundCache` holds the sound
    /// measures of outputs with the same audio packets (`QCSoundCache`), and keeps this one's.
    public static func measure(
        _ url: URL, fps: Rational, chunkStarts: [Int64], blockStarts: [Int64], target: LoudnessTarget?,
        blackFrames: [Bool]? = nil, soundCache: QCSoundCache? = nil, measuredSound: MeasuredSound? = nil,
        sound soundURL: URL? = nil, gridFromFirst: Bool = false
    ) throws -> QCReport {
        let description = try MediaDescription(path: url.path)
        // An HLS package keeps its sound apart from its pictures.
        let soundDescription = try soundURL.map { try MediaDescription(path: $0.path) } ?? description
        let bytes = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int64) ?? 0
        var broken: [String] = []
        var checked = 0
        var video: QCReport.Video?
        if let stream = description.streams.first(where: { $0.kind == "video" }) {
            let (frames, seamProblems, seams) = try videoTimestamps(
                url, fps: fps, chunkStarts: chunkStarts, fromFirst: gridFromFirst)
            broken += seamProblems
            checked += seams
            video = Self.video(stream, frames: frames)
            video?.blacks = blackRuns(try blackFrames ?? BlackFrameScan.blackFrames(path: url.path), fps: fps)
        }
        var audio: QCReport.Audio?
        if let stream = soundDescription.streams.first(where: { $0.kind == "audio" }), let rate = stream.sampleRate,
            let channels = stream.channels
        {
            let url = soundURL ?? url
            let packets =
                soundCache != nil || measuredSound != nil
                ? soundKeyHasher(codec: stream.codec, sampleRate: rate, channels: channels) : nil
            let (seamProblems, seams, samples) = try audioTimestamps(
                url, sampleRate: rate, blockStarts: blockStarts, hashing: packets)
            broken += seamProblems
            checked += seams
            let key = packets.map { $0.finish() }
            if let key, let measuredSound, measuredSound.key == key, measuredSound.audio.samples == samples {
                audio = measuredSound.audio
                soundCache?.keep(measuredSound.audio, key: key)
            } else if let key, let kept = soundCache?.measure(key), kept.samples == samples {
                audio = kept
            } else {
                audio = try sound(url, codec: stream.codec, sampleRate: rate, channels: channels, samples: samples)
                if let key, let audio { soundCache?.keep(audio, key: key) }
            }
        }
        var misses: [String] = []
        if let target, let audio {
            misses = target.misses(integrated: audio.integrated, truePeak: audio.truePeak ?? -.infinity)
        }
        return QCReport(
            path: url.path, bytes: bytes, container: description.container, duration: description.duration,
            video: video, audio: audio, seams: QCReport.Seams(checked: checked, broken: broken), target: target,
            misses: misses)
    }

    /// A file's sound as `measure` measured it, under the key of its audio packets (their
    /// bytes and timestamps, the codec, rate and channels): another file whose audio packets
    /// hash the same has the same sound.
    public struct MeasuredSound: Sendable {
        public var key: String
        public var audio: QCReport.Audio
    }

    /// Measures the sound of `url` and keys it, for `measure` of a file with the same packets
    /// (the audio blocks joined alone, measured while the pictures still render); nil for a
    /// file without sound. Its spans are measured on threads at nice 10: the cores are the
    /// renders' meanwhile, and every core is the measure's once they end.
    public static func measuredSound(of url: URL) throws -> MeasuredSound? {
        let description = try MediaDescription(path: url.path)
        guard let stream = description.streams.first(where: { $0.kind == "audio" }), let rate = stream.sampleRate,
            let channels = stream.channels
        else { return nil }
        let packets = soundKeyHasher(codec: stream.codec, sampleRate: rate, channels: channels)
        let samples = try audioTimestamps(url, sampleRate: rate, blockStarts: [], hashing: packets).samples
        let audio = try sound(
            url, codec: stream.codec, sampleRate: rate, channels: channels, samples: samples, lowered: true)
        return MeasuredSound(key: packets.finish(), audio: audio)
    }

    /// What a sound's key hashes before its packets: the measure depends on them too.
    private static func soundKeyHasher(codec: String, sampleRate: Int, channels: Int) -> SHA256 {
        let hasher = SHA256()
        hasher.update(Array("\(codec) \(sampleRate) \(channels) \(spanSeconds)".utf8))
        return hasher
    }

    /// The sound of `url` decoded and measured as `measure` does; nil for a file without sound.
    /// `spanSeconds` as large as the programme measures it in one span, on one core.
    public static func sound(of url: URL, exhaustive: Bool = false, spanSeconds: Int64 = spanSeconds) throws
        -> QCReport.Audio?
    {
        let description = try MediaDescription(path: url.path)
        guard let stream = description.streams.first(where: { $0.kind == "audio" }), let rate = stream.sampleRate,
            let channels = stream.channels
        else { return nil }
        let samples = try audioTimestamps(url, sampleRate: rate, blockStarts: []).samples
        return try sound(
            url, codec: stream.codec, sampleRate: rate, channels: channels, samples: samples, exhaustive: exhaustive,
            spanSeconds: spanSeconds)
    }

    /// Runs of black frames at least `QCReport.blackMinimum` long, in seconds.
    static func blackRuns(_ flags: [Bool], fps: Rational) -> [QCReport.Run] {
        let seconds = { (frame: Int) in Double(frame) * Double(fps.denominator) / Double(fps.numerator) }
        var runs: [QCReport.Run] = []
        var start: Int?
        for (index, black) in (flags + [false]).enumerated() {
            if black, start == nil { start = index }
            if !black, let first = start {
                if seconds(index) - seconds(first) >= QCReport.blackMinimum {
                    runs.append(QCReport.Run(start: seconds(first), end: seconds(index)))
                }
                start = nil
            }
        }
        return runs
    }

    /// A video stream's report: what its header says, and the frames its packets count.
    static func video(_ stream: MediaDescription.Stream, frames: Int64) -> QCReport.Video {
        QCReport.Video(
            codec: stream.codec, profile: stream.profile, width: stream.width ?? 0, height: stream.height ?? 0,
            pixelFormat: stream.pixelFormat, frameRate: stream.frameRate, colorTransfer: stream.colorTransfer,
            frames: frames)
    }

    /// Frames counted, and whether every frame index 0..<n appears once with the chunk seams'
    /// neighbours present.
    /// `fromFirst` counts the grid from the first packet's time (a keyframe, which a closed GOP
    /// shows first): an HLS playlist's, which libavformat's hls muxer starts where it moved it.
    static func videoTimestamps(_ url: URL, fps: Rational, chunkStarts: [Int64], fromFirst: Bool = false) throws
        -> (frames: Int64, broken: [String], checked: Int)
    {
        let input = try DemuxedStream(path: url.path, kind: .video)
        let toFrames = input.framesPerTick(fps: fps)
        let packet = Packet()
        var seen = Set<Int64>()
        var offGrid = 0
        var count: Int64 = 0
        var origin: Int64?
        while try input.read(into: packet) {
            defer { packet.unref() }
            count += 1
            guard let pts = packet.pts else {
                offGrid += 1
                continue
            }
            if fromFirst, origin == nil { origin = pts }
            let frame = Rational(pts - (origin ?? 0)) * toFrames
            if frame.denominator == 1 { seen.insert(frame.numerator) } else { offGrid += 1 }
        }
        var broken: [String] = []
        if offGrid > 0 { broken.append("\(offGrid) video packet(s) off the frame grid") }
        let seams = chunkStarts.filter { $0 > 0 && $0 < count }
        for start in seams where !(seen.contains(start - 1) && seen.contains(start)) {
            broken.append("video seam at frame \(start): frame \(seen.contains(start - 1) ? start : start - 1) missing")
        }
        let first = seen.min() ?? 0
        if Int64(seen.count) != count || (seen.max() ?? -1) - first + 1 != count {
            broken.append("video frames are not one each of \(first)..<\(first + count)")
        }
        return (count, broken, seams.count)
    }

    /// Whether each audio packet starts where the one before ended, at every block seam; every
    /// packet's timestamps and bytes go through `hashing`, if given.
    static func audioTimestamps(_ url: URL, sampleRate: Int, blockStarts: [Int64], hashing: SHA256? = nil) throws
        -> (broken: [String], checked: Int, samples: Int64)
    {
        let input = try DemuxedStream(path: url.path, kind: .audio)
        let toSamples = input.timeBase * Rational(Int64(sampleRate))
        let packet = Packet()
        var spans: [(start: Int64, end: Int64)] = []
        while try input.read(into: packet) {
            defer { packet.unref() }
            if let hashing {
                let stamps = [packet.pts ?? Int64.min, packet.duration, Int64(packet.bytes.count)]
                stamps.withUnsafeBytes { hashing.update($0) }
                hashing.update(packet.bytes)
            }
            guard let pts = packet.pts else { continue }
            let start = (Rational(pts) * toSamples).rounded
            spans.append((start, start + (Rational(packet.duration) * toSamples).rounded))
        }
        var broken: [String] = []
        // Seams count from the first sample of sound, after the encoder's priming (negative
        // timestamps); both lists are in order, so one walk pairs each seam with its packet.
        let origin = (spans.first?.start ?? 0) + max(0, -(spans.first?.start ?? 0))
        var checked = 0
        var index = 0
        for seam in blockStarts.sorted() where seam > 0 {
            while index < spans.count, spans[index].start - origin < seam { index += 1 }
            guard index < spans.count else { break }
            checked += 1
            if index > 0, spans[index - 1].end != spans[index].start {
                broken.append(
                    "audio seam at sample \(seam): a packet ends at \(spans[index - 1].end), "
                        + "the next starts at \(spans[index].start)")
            }
        }
        let samples = (spans.last?.end ?? 0) - max(0, spans.first?.start ?? 0)
        return (broken, checked, samples)
    }
}

extension QCReport {
    /// Where an output that missed a target it had to meet is kept: `film.failed-qc.mp4`.
    public static func asideURL(for output: URL) -> URL {
        let ext = output.pathExtension
        let stem = output.deletingPathExtension().lastPathComponent
        return output.deletingLastPathComponent().appendingPathComponent(
            ext.isEmpty ? "\(stem).failed-qc" : "\(stem).failed-qc.\(ext)")
    }
}
