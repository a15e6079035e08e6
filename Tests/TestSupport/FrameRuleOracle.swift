import FarmCore
import Foundation

/// ffmpeg's decode of a source, every picture, with the rule the farm documents for which
/// picture a media time shows (docs/project-format.md, "Which picture a time shows"): media time
/// 0 is the container's start; time `t` shows the last picture whose timestamp is at or before
/// `t` plus 1/8 of the nominal frame period; before the first picture, the first.
public struct FrameRuleOracle {
    /// Each decoded picture's media time, in decoding output order.
    public let times: [Rational]
    /// Each decoded picture as raw YUV 4:2:0, converted by `graph` to the canvas size.
    public let pictures: [[UInt8]]
    let tolerance: Rational

    /// Decodes `file` with ffmpeg (its own autorotate on), every picture kept (`-fps_mode
    /// passthrough`), each put through `graph` and written as YUV 4:2:0.
    public init(file: URL, graph: String, width: Int, height: Int) throws {
        let info = try probe(
            file,
            [
                "-select_streams", "v:0", "-show_entries",
                "frame=best_effort_timestamp:stream=time_base,avg_frame_rate,r_frame_rate:format=start_time",
            ])
        guard let stream = (info["streams"] as? [[String: Any]])?.first,
            let timeBase = Rational(parsing: stream["time_base"] as? String ?? ""),
            let frames = info["frames"] as? [[String: Any]]
        else { throw TestError.failed("ffprobe found no video stream in \(file.lastPathComponent)") }
        let rate = [stream["avg_frame_rate"], stream["r_frame_rate"]].compactMap { $0 as? String }
            .compactMap { Rational(parsing: $0) }.first { $0.numerator > 0 }
        tolerance = rate.map { Rational($0.denominator, $0.numerator) / Rational(8) } ?? Rational(1, 8000)
        // The container's start in the stream's time base, to the nearest tick, as the farm
        // rescales it.
        let startSeconds = Rational(parsing: (info["format"] as? [String: Any])?["start_time"] as? String ?? "0")
        let startTicks = ((startSeconds ?? .zero) / timeBase).rounded
        var times: [Rational] = []
        for frame in frames {
            let stamp = frame["best_effort_timestamp"] as? Int64
            times.append(stamp.map { Rational($0 - startTicks) * timeBase } ?? (times.last ?? .zero))
        }
        let raw = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString + ".yuv")
        defer { try? FileManager.default.removeItem(at: raw) }
        try ffmpeg([
            "-i", file.path, "-map", "0:v:0", "-fps_mode", "passthrough", "-vf", graph, "-pix_fmt", "yuv420p", "-f",
            "rawvideo", raw.path,
        ])
        let data = [UInt8](try Data(contentsOf: raw))
        let size = width * height * 3 / 2
        let pictures = stride(from: 0, to: data.count, by: size).map { Array(data[$0..<min($0 + size, data.count)]) }
        guard pictures.count == times.count else {
            throw TestError.failed(
                "\(file.lastPathComponent): ffprobe saw \(times.count) pictures, ffmpeg wrote \(pictures.count)")
        }
        // Pictures stamped before the first keyframe (a stream joined mid-GOP, an open GOP's
        // leading B-frames) reference what the file lacks: the farm's reader drops them
        // (docs/media.md, "Seeking"); ffmpeg shows them, broken.
        let joined = try Self.firstKeyframe(of: file).map { Rational($0 - startTicks) * timeBase }
        let kept = times.indices.filter { index in joined.map { !(times[index] < $0) } ?? true }
        self.times = kept.map { times[$0] }
        self.pictures = kept.map { pictures[$0] }
    }

    /// The timestamp of the first keyframe of `file`'s first video stream, in decoding order.
    static func firstKeyframe(of file: URL) throws -> Int64? {
        let info = try probe(
            file, ["-select_streams", "v:0", "-read_intervals", "%+#400", "-show_entries", "packet=pts,flags"])
        let packets = info["packets"] as? [[String: Any]] ?? []
        return packets.first { ($0["flags"] as? String ?? "").hasPrefix("K") }?["pts"] as? Int64
    }

    /// The index of the picture media time `time` shows.
    public func index(at time: Rational) -> Int {
        let limit = time + tolerance
        return times.lastIndex { !(limit < $0) } ?? 0
    }
}

/// Peak signal-to-noise ratio of two same-sized 8-bit pictures, in dB (infinity when equal).
public func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
    guard a.count == b.count, !a.isEmpty else { return 0 }
    var sum = 0.0
    for (x, y) in zip(a, b) {
        let d = Double(x) - Double(y)
        sum += d * d
    }
    if sum == 0 { return .infinity }
    return 10 * log10(255 * 255 / (sum / Double(a.count)))
}

/// The samples of `file`'s first sound stream as interleaved signed 16-bit stereo at 48 kHz,
/// through `filter` (ffmpeg's own resampler and channel matrix).
public func stereoSamples(_ file: URL, filter: String) throws -> [Int16] {
    let raw = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString + ".pcm")
    defer { try? FileManager.default.removeItem(at: raw) }
    try ffmpeg(["-i", file.path, "-map", "0:a:0", "-af", filter, "-ac", "2", "-f", "s16le", raw.path])
    let data = try Data(contentsOf: raw)
    return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
}
