import FarmCore
import Foundation
import Testing

/// 5.1 output's test material: a 5.1 (side) source, a 7.1 source, a stereo one and a mono one,
/// overlapping on a 12 s timeline, and ffmpeg's mix of them as the oracle (each source's own
/// decode through `-ac 6`, summed where the items lie). Rendered in process by FarmRenderTests'
/// SurroundMixTests and by a farm in EndToEndTests' SurroundExportTests.
public enum SurroundSources {
    public static let seconds = 12
    public static let samples = seconds * 48000

    /// The items: asset, its file, timeline start, source start, seconds.
    public static let items: [(asset: String, file: String, at: Int, start: Double, length: Int)] = [
        ("side", "side51.wav", 0, 1, 7), ("seven", "seven71.wav", 2, 1.5, 4), ("stereo", "stereo.wav", 5, 0.5, 7),
        ("mono", "mono.wav", 9, 0, 2),
    ]

    public static func makeSources(in dir: URL) throws {
        for (file, source) in [
            ("side51.wav", "aevalsrc=0.3*sin(2*PI*(200+100*ch)*t):c=5.1(side):s=48000:d=14"),
            ("seven71.wav", "aevalsrc=0.3*sin(2*PI*(250+90*ch)*t):c=7.1:s=48000:d=6"),
            ("stereo.wav", "aevalsrc=0.3*sin(2*PI*(1000+300*ch)*t):c=stereo:s=48000:d=10"),
            ("mono.wav", "sine=frequency=1500:sample_rate=48000:duration=5"),
        ] where !FileManager.default.fileExists(atPath: dir.appendingPathComponent(file).path) {
            try TestMedia.make(file, in: dir, audio: source)
        }
    }

    public static func project(export: String, channels: Int = 6) -> String {
        let assets = items.map { #""\#($0.asset)": {"path": "\#($0.file)"}"# }.joined(separator: ", ")
        let tracks = items.map {
            #"{"kind": "audio", "items": [{"asset": "\#($0.asset)", "at": "\#($0.at)", "duration": "\#($0.length)", "#
                + #""source": {"start": "\#($0.start)"}}]}"#
        }
        return """
            {
              "output": {"width": 64, "height": 36, "fps": "30",
                "audio": {"sampleRate": 48000, "channels": \(channels)}},
              "export": \(export),
              "assets": {\(assets)},
              "tracks": [\(tracks.joined(separator: ",\n"))]
            }
            """
    }

    /// Interleaved 16-bit samples of `file`'s sound as ffmpeg decodes it, through `filter`.
    public static func decoded(_ file: URL, _ arguments: [String] = []) throws -> [Int16] {
        let raw = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString + ".s16")
        defer { try? FileManager.default.removeItem(at: raw) }
        try ffmpeg(["-i", file.path, "-map", "0:a"] + arguments + ["-f", "s16le", raw.path])
        return try Data(contentsOf: raw).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    /// ffmpeg's mix: each item's span of its source through `-ac 6`, summed at its place.
    public static func oracle(in dir: URL) throws -> [Int] {
        var mix = [Int](repeating: 0, count: samples * 6)
        for item in items {
            let first = Int(item.start * 48000)
            let span = try decoded(
                dir.appendingPathComponent(item.file),
                ["-af", "atrim=start_sample=\(first):end_sample=\(first + item.length * 48000)", "-ac", "6"])
            #expect(span.count == item.length * 48000 * 6, "\(item.file): ffmpeg decoded \(span.count / 6)")
            for (index, sample) in span.enumerated() { mix[item.at * 48000 * 6 + index] += Int(sample) }
        }
        return mix
    }

    /// Each channel's signal-to-noise ratio in dB of `decoded` against `reference`.
    public static func channelSNR(_ decoded: [Int16], _ reference: [Int]) -> [Double] {
        (0..<6).map { channel in
            var signal = 0.0
            var noise = 0.0
            for index in stride(from: channel, to: min(decoded.count, reference.count), by: 6) {
                let wanted = Double(reference[index])
                signal += wanted * wanted
                noise += (Double(decoded[index]) - wanted) * (Double(decoded[index]) - wanted)
            }
            return 10 * log10(signal / max(noise, 1))
        }
    }

    public struct Export: CustomStringConvertible, Sendable {
        public var container: String
        public var audio: String
        public init(container: String, audio: String) {
            self.container = container
            self.audio = audio
        }
        public var description: String { "\(audio) in \(container)" }
        public var json: String {
            let video = container == "mp4" ? #"{"codec": "h264", "lossless": true}"# : #"{"codec": "ffv1"}"#
            let bitrate = audio == "aac" ? #", "bitrate": 384000"# : ""
            return #"{"container": "\#(container)", "video": \#(video), "audio": {"codec": "\#(audio)"\#(bitrate)}}"#
        }
    }

    /// Checks `sound` (interleaved 16-bit, as `decoded` reads it) of an `export` against
    /// ffmpeg's mix: within 1 of it for PCM, every channel above 20 dB SNR for AAC. Returns a
    /// line saying how close it came.
    public static func expectMatchesOracle(_ sound: [Int16], export: Export, in dir: URL) throws -> String {
        let oracle = try oracle(in: dir)
        if export.audio == "pcm" {
            #expect(sound.count == samples * 6, "\(export): \(sound.count / 6) samples")
            let worst = zip(sound, oracle).map { abs(Int($0) - $1) }.max() ?? .max
            #expect(worst <= 1, "\(export): up to \(worst) from ffmpeg's -ac 6 mix")
            let peaks = (0..<6).map { channel in
                stride(from: channel, to: sound.count, by: 6).map { abs(Int(sound[$0])) }.max() ?? 0
            }
            #expect(peaks.allSatisfy { $0 > 5000 }, "\(export): channel peaks \(peaks)")
            return "\(export): at most \(worst) from ffmpeg's -ac 6 mix"
        }
        // AAC: the encoder's priming is trimmed by MP4's and MOV's edit list, not by Matroska.
        // Every channel lies where the mix put it, within the codec's noise.
        let priming = export.container == "mkv" ? 1024 * 6 : 0
        let snr = channelSNR(Array(sound.dropFirst(priming)), oracle)
        #expect(snr.allSatisfy { $0 > 20 }, "\(export): per-channel SNR \(snr)")
        return "\(export): per-channel SNR against ffmpeg's -ac 6 mix \(snr.map { Int($0) }) dB"
    }

    /// What a reader sees of `file`: six channels laid out as 5.1. Matroska's PCM track has no
    /// place for channel positions: ffprobe names no layout, as for ffmpeg's own such file.
    public static func expectSixChannels(_ file: URL, export: Export) throws {
        let layout: String? = export.audio == "pcm" && export.container == "mkv" ? nil : "5.1"
        let info = try probe(
            file, ["-select_streams", "a", "-show_entries", "stream=codec_name,channels,channel_layout"])
        let stream = (info["streams"] as? [[String: Any]])?.first ?? [:]
        #expect(stream["codec_name"] as? String == (export.audio == "aac" ? "aac" : "pcm_s16le"), "\(export)")
        #expect(stream["channels"] as? Int == 6, "\(export): \(file.lastPathComponent) \(stream)")
        #expect(stream["channel_layout"] as? String == layout, "\(export): \(file.lastPathComponent) \(stream)")
    }
}
