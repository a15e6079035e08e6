import FarmCore
import Foundation

/// What ffprobe says of a file a device wrote, and the one-item project and oracle graph the
/// conformance check renders it with: a canvas 320 wide at the picture's displayed shape, 30 fps,
/// from 1 s in where the file lasts 2.5 s or more.
public struct WildSource {
    public let url: URL
    public let hasPicture: Bool
    public let hasSound: Bool
    /// A picture with no timing: the farm shows it for the whole item.
    public let still: Bool
    public let canvas: (width: Int, height: Int)
    public private(set) var start: Rational
    public private(set) var duration: Rational
    /// How long the file lasts (its container's duration, else its last packet's time).
    public let length: Rational
    /// A channel count with no default layout (9 to 15): the farm sums it to mono.
    let unpositionedChannels: Int?
    let highDynamicRange: Bool
    let tagged: Bool
    /// DV, whose standard fixes BT.601 (docs/media.md).
    let digitalVideo: Bool

    public init(_ url: URL) throws {
        self.url = url
        // A file ffprobe cannot read is still given to the farm, which must refuse it.
        let info =
            (try? probe(
                url,
                [
                    "-show_entries",
                    "format=format_name,duration:stream=codec_type,codec_name,width,height,sample_aspect_ratio,"
                        + "color_transfer,color_space,channels,channel_layout,nb_frames:stream_disposition=attached_pic"
                        + ":stream_side_data=rotation",
                ])) ?? [:]
        let streams = info["streams"] as? [[String: Any]] ?? []
        // A cover picture in a sound file is not a picture the farm plays.
        let video = streams.first {
            $0["codec_type"] as? String == "video"
                && (($0["disposition"] as? [String: Any])?["attached_pic"] as? Int ?? 0) == 0
        }
        let audio = streams.first { $0["codec_type"] as? String == "audio" }
        let format = info["format"] as? [String: Any] ?? [:]
        let formatName = format["format_name"] as? String ?? ""
        hasPicture = video != nil || streams.isEmpty
        hasSound = audio != nil
        digitalVideo = video?["codec_name"] as? String == "dvvideo"
        let frames = Int(video?["nb_frames"] as? String ?? "") ?? 0
        still = formatName.hasSuffix("_pipe") || formatName == "image2" || (formatName == "gif" && frames <= 1)
        length = Rational(parsing: format["duration"] as? String ?? "") ?? Self.lastPacketTime(of: url)
        start = !still && Rational(5, 2) <= length ? Rational(1) : .zero
        let available = still ? Rational(1) : length - start
        // At least 3 frames: a shorter file holds its last picture (`pastEnd`).
        duration = [Rational(1), Rational(1, 2), Rational(1, 5)].first { !(available < $0) } ?? Rational(1, 10)
        let channels = audio?["channels"] as? Int ?? 2
        unpositionedChannels =
            (9...15).contains(channels) && (audio?["channel_layout"] as? String ?? "").isEmpty ? channels : nil
        let transfer = video?["color_transfer"] as? String ?? ""
        highDynamicRange = transfer == "smpte2084" || transfer == "arib-std-b67"
        // The decoder's tag counts, not only the container's: VP8's decoder tags BT.601.
        let frameTags =
            video == nil
            ? nil
            : try? probe(
                url, ["-select_streams", "v:0", "-read_intervals", "%+#1", "-show_entries", "frame=color_space"])
        let frameSpace = (frameTags?["frames"] as? [[String: Any]])?.first?["color_space"] as? String
        tagged = !(video?["color_space"] as? String ?? "").isEmpty || !["", "unknown"].contains(frameSpace ?? "")
        canvas = Self.canvas(of: video)
    }

    /// The same file played from `start` for `duration`.
    public func playing(from start: Rational, for duration: Rational) -> WildSource {
        var part = self
        part.start = start
        part.duration = duration
        return part
    }

    /// Where the container names no duration (a browser's MediaRecorder WebM): its last packet's
    /// time.
    static func lastPacketTime(of url: URL) -> Rational {
        let packets = (try? probe(url, ["-show_entries", "packet=pts_time"]))?["packets"] as? [[String: Any]] ?? []
        return packets.compactMap { Rational(parsing: $0["pts_time"] as? String ?? "") }.max() ?? .zero
    }

    /// 320 wide at the displayed shape (sample aspect ratio and a quarter turn applied), even.
    static func canvas(of video: [String: Any]?) -> (width: Int, height: Int) {
        guard let video, let width = video["width"] as? Int, let height = video["height"] as? Int, width > 0, height > 0
        else {
            return (320, 240)
        }
        let aspect = Rational(
            parsing: (video["sample_aspect_ratio"] as? String ?? "1:1").replacingOccurrences(
                of: ":", with: "/"))
        var shown = Double(width) * (aspect.flatMap { $0.numerator > 0 && $0.denominator > 0 ? $0.seconds : nil } ?? 1)
        var tall = Double(height)
        let sideData = video["side_data_list"] as? [[String: Any]] ?? []
        if let rotation = sideData.compactMap({ $0["rotation"] as? Int }).first, abs(rotation) % 180 == 90 {
            swap(&shown, &tall)
        }
        return (320, max(2, Int((320 * tall / shown / 2).rounded()) * 2))
    }

    /// The one-item project, exported lossless (FFV1 and PCM in Matroska).
    public var project: String { project(sound: !hasPicture) }

    /// The same with the file on an audio track (`sound`), or a video track.
    public func project(sound: Bool) -> String {
        let timing = still ? "" : #", "source": {"start": "\#(start)"}, "pastEnd": "hold""#
        return """
            {
              "output": {"width": \(canvas.width), "height": \(canvas.height), "fps": "30",
                "audio": {"sampleRate": 48000, "channels": 2}},
              "export": {"container": "mkv", "video": {"codec": "ffv1"}, "audio": {"codec": "pcm"}},
              "assets": {"a": {"path": "\(url.path)"}},
              "tracks": [{"kind": "\(sound ? "audio" : "video")", "items": [
                {"asset": "a", "at": "0", "duration": "\(duration)"\(timing), "fit": "stretch"}
              ]}]
            }
            """
    }

    /// ffmpeg's graph for the picture the farm should draw: one `scale` to the canvas (BT.709
    /// where the file names no matrix), or the tone-mapping graph docs/media.md names, then the
    /// scale.
    public var oracleGraph: String {
        let scale = "scale=\(canvas.width):\(canvas.height):flags=bicubic+accurate_rnd+bitexact"
        if highDynamicRange { return ConformanceRow.toneMapping + "," + scale }
        let matrix = digitalVideo ? "bt601" : "bt709"
        return scale
            + (tagged
                ? ConformanceRow.taggedSource : ":in_color_matrix=\(matrix):out_color_matrix=bt709:out_range=tv")
    }

    /// The sound the farm should play over `samples` at 48 kHz, interleaved stereo: ffmpeg's
    /// decode, mixed (`-ac 2`; unpositioned channels first summed to mono, each at 1/N, as
    /// docs/media.md says) and resampled as docs/media.md's suite takes it
    /// (`aresample=48000:async=1:first_pts=0`: placed by its stamps from the container's start),
    /// the item's span cut out, silence after. `asDecoded` resamples the decode as it comes
    /// (`aresample=48000`) and places its first sample at the stream's start instead: for a file
    /// whose stamps ffmpeg's `async` corrects by stretching (docs/media.md, "Files users
    /// brought").
    public func expectedSound(samples: Int, asDecoded: Bool) throws -> [Int16] {
        let mix =
            unpositionedChannels.map { count in
                "pan=mono|c0=" + (0..<count).map { "\(1.0 / Double(count))*c\($0)" }.joined(separator: "+") + ","
            } ?? ""
        guard asDecoded else {
            return try stereoSamples(
                url,
                filter: mix + "aresample=48000:async=1:first_pts=0,atrim=start=\(start.seconds):"
                    + "duration=\(duration.seconds),apad,atrim=end_sample=\(samples)")
        }
        let decoded = try stereoSamples(url, filter: mix + "aresample=48000")
        // The stream's start, past an edit list's trim and the codec's priming, as ffmpeg takes it.
        let starts = try probe(url, ["-select_streams", "a:0", "-show_entries", "stream=start_time:format=start_time"])
        let first =
            ((starts["streams"] as? [[String: Any]])?.first?["start_time"] as? String)
            .flatMap { Rational(parsing: $0) } ?? .zero
        let origin = Rational(parsing: (starts["format"] as? [String: Any])?["start_time"] as? String ?? "0") ?? .zero
        // The item's first sample frame in the decode's numbering.
        let offset = Int(((start - (first - origin)) * Rational(48000)).rounded)
        return (0..<samples).flatMap { frame -> [Int16] in
            let at = offset + frame
            return at >= 0 && 2 * at + 1 < decoded.count ? [decoded[2 * at], decoded[2 * at + 1]] : [0, 0]
        }
    }
}
