import Foundation

/// A timeline to render: output format, export settings, media assets and tracks in z-order.
///
/// The JSON form is documented in `docs/project-format.md`; `ProjectParser` turns it into this
/// value after checking every key, and `ProjectLoader` checks it against the media itself.
public struct Project: Sendable, Codable, Hashable {
    public var output: OutputSettings
    public var export: ExportSettings
    /// Asset id to asset; paths are absolute once parsed.
    public var assets: [String: Asset]
    /// Later tracks draw on top of earlier ones.
    public var tracks: [Track]

    public init(output: OutputSettings, export: ExportSettings, assets: [String: Asset], tracks: [Track]) {
        self.output = output
        self.export = export
        self.assets = assets
        self.tracks = tracks
    }

    /// The end of the last item on any track.
    public var duration: Rational {
        tracks.flatMap(\.items).map(\.end).max() ?? .zero
    }

    /// Output frames in the timeline: every frame whose start time lies before `duration`.
    public var frameCount: Int64 {
        (duration * output.fps).ceil
    }
}

public struct OutputSettings: Sendable, Codable, Hashable {
    public var width: Int
    public var height: Int
    /// Frames per second, exact (30000/1001 for NTSC rates).
    public var fps: Rational
    public var background: RGBColor
    public var audio: AudioLayout
    /// SDR BT.709 in 8 bits, or HDR (BT.2020 primaries, PQ or HLG) composited and encoded in 10.
    public var dynamicRange: DynamicRange = .sdr
    /// Graded after compositing, before the encoder.
    public var grade: ColourGrade?

    /// The start time of output frame `n`.
    public func time(ofFrame n: Int64) -> Rational { Rational(n) / fps }
}

/// How the output's light is coded: the canvas, the encoder's input and the file's tags.
public enum DynamicRange: String, Sendable, Codable, Hashable, CaseIterable {
    /// BT.709 primaries and transfer, 8 bits.
    case sdr
    /// BT.2020 primaries, SMPTE ST 2084 transfer (HDR10's), 10 bits.
    case pq
    /// BT.2020 primaries, ARIB STD-B67 hybrid log-gamma transfer (phones' HDR), 10 bits.
    case hlg

    /// The range a source of ffprobe's transfer name `name` is in: PQ, HLG, or SDR for any other.
    public init(transferName name: String?) {
        switch name {
        case "smpte2084": self = .pq
        case "arib-std-b67": self = .hlg
        default: self = .sdr
        }
    }

    /// Bits a sample on the canvas and in the encoder.
    public var depth: Int { self == .sdr ? 8 : 10 }
}

public struct AudioLayout: Sendable, Codable, Hashable {
    public var sampleRate: Int
    /// 1 (mono), 2 (stereo) or 6: 5.1 as FFmpeg lays it out by default, and so `ffmpeg -ac 6`
    /// (front left, front right, centre, LFE, back left, back right).
    public var channels: Int

    /// The channel counts an output may have. Each stands for FFmpeg's default layout of that
    /// many channels, which readers and encoders both use. Not 8: FFmpeg 5.1's AAC encoder
    /// writes 7.1 as channel configuration 7, which other decoders take for 7.1 with front
    /// wide pairs. Not 4: the default four-channel layout is 4.0 (with a back centre), not quad.
    public static let channelCounts: Set<Int> = [1, 2, 6]
}

public struct RGBColor: Sendable, Codable, Hashable {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    public init?(hex: String) {
        guard hex.count == 7, hex.first == "#", let value = UInt32(hex.dropFirst(), radix: 16) else { return nil }
        self.init(red: UInt8(value >> 16 & 0xFF), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
    }
}

public struct ExportSettings: Sendable, Codable, Hashable {
    public enum Container: String, Sendable, Codable, Hashable, CaseIterable {
        case mp4, mov, mkv
        /// HTTP Live Streaming: a master playlist (`.m3u8`), a media playlist per rendition and
        /// one for the sound, CMAF (fragmented MP4) segments cut on the chunk grid.
        case hls
        /// Numbered image files, one per frame (`out.%06d.png`), in `export.video.codec`'s format
        /// (png, tiff, dpx or exr), with a checksum manifest beside them; pictures only.
        case frames

        /// The extension of an output in this container (numbered frames: their format's).
        public var fileExtension: String {
            switch self {
            case .hls: return "m3u8"
            case .frames: return "png"
            default: return rawValue
            }
        }

        /// The container an output's extension names (`.m3u8` is HLS; an image format's,
        /// numbered frames).
        public init?(fileExtension: String) {
            let ext = fileExtension.lowercased()
            if VideoCodec.allCases.contains(where: { $0.frameExtensions.contains(ext) }) {
                self = .frames
                return
            }
            guard let container = ext == "m3u8" ? .hls : Container(rawValue: ext), ext != "hls", ext != "frames"
            else { return nil }
            self = container
        }
    }

    public enum VideoCodec: String, Sendable, Codable, Hashable, CaseIterable {
        /// ProRes 422 HQ (prores_ks), 10-bit 4:2:2, every frame a keyframe. AV1 is SVT-AV1
        /// (libsvtav1), which MOV cannot carry.
        case h264, hevc, ffv1, prores, av1
        /// Image formats, for numbered-frames outputs alone: PNG (8 or 16 bits a sample), TIFF
        /// (8 or 16), DPX (10) and OpenEXR (half floats), all RGB.
        case png, tiff, dpx, exr

        /// A format of numbered image files.
        public var isImage: Bool { !frameExtensions.isEmpty }

        /// The file extensions of numbered frames in this format (none for video codecs).
        public var frameExtensions: [String] {
            switch self {
            case .png: return ["png"]
            case .tiff: return ["tif", "tiff"]
            case .dpx: return ["dpx"]
            case .exr: return ["exr"]
            default: return []
            }
        }
    }

    public enum AudioCodec: String, Sendable, Codable, Hashable, CaseIterable {
        case aac, pcm
    }

    public struct Video: Sendable, Codable, Hashable {
        public var codec: VideoCodec
        /// Constant rate factor (libx264/libx265); ignored when `bitrate` is set.
        public var crf: Int
        /// Target bits per second; nil means quality-based (`crf`).
        public var bitrate: Int?
        /// The rate the encoder's buffer may be filled at, bits per second (VBV: a cap on
        /// `crf` or `bitrate`, what streaming ladders set); nil leaves it unbounded.
        public var maxrate: Int? = nil
        /// The buffer `maxrate` is measured over, in bits; nil is two seconds of `maxrate`.
        public var bufsize: Int? = nil
        public var preset: String
        /// Frames between keyframes.
        public var gop: Int
        /// Mathematically lossless (x264/x265 qp 0; ffv1 always is).
        public var lossless: Bool
        /// The encoder's own private options (`tune`, `profile`, `aq-mode`, …), passed as they
        /// are to every chunk's encoder; the ones the farm sets itself are refused by the parser.
        public var encoderOptions: [String: String] = [:]

        /// Lossy x264/x265 decisions depend on the frames an encoder has already seen (rate
        /// control, lookahead) and on its thread count. So every render, local or chunked,
        /// encodes each GOP of the timeline with a fresh single-threaded encoder, and chunks
        /// start on GOP boundaries: then no chunking changes a single bit. Lossless output
        /// decodes the same whatever the encoder saw, so it needs neither.
        public var encodesPerGOP: Bool { !isIntraOnly && !lossless }

        /// Every frame stands alone (FFV1 at GOP 1, ProRes): chunks may start at any frame.
        public var isIntraOnly: Bool { codec == .ffv1 || codec == .prores || codec.isImage }

        /// The frame multiple this encoder needs chunk boundaries on (`ExportSettings.chunkAlignment`
        /// takes every rendition's).
        public var chunkAlignment: Int64 { encodesPerGOP ? Int64(gop) : 1 }
    }

    public struct Audio: Sendable, Codable, Hashable {
        public var codec: AudioCodec
        public var bitrate: Int
        /// Normalized to this loudness in two passes over the audio blocks (`LoudnessTarget`).
        public var loudness: LoudnessTarget? = nil
    }

    public var container: Container
    public var video: Video
    public var audio: Audio
    /// A frame of the output as a picture beside it (`StillSettings.swift`).
    public var poster: PosterSettings? = nil
    /// A sheet of small frames and its WebVTT track beside the output.
    public var thumbnails: ThumbnailSettings? = nil
    /// A few seconds of the output as an animated GIF beside it.
    public var preview: PreviewSettings? = nil
    /// Further encodes of the same canvas (`Rendition`); nil or empty: `video` alone.
    public var renditions: [Rendition]? = nil

    /// The export codecs that `container` cannot carry, as (key under `export`, codec name,
    /// the containers that can): MP4 takes neither PCM audio, FFV1 nor ProRes; MOV takes no AV1.
    /// HLS (CMAF) takes what MP4 takes. Every rendition's codec is held to the container too.
    public func codecsUnsupported(by container: Container) -> [(key: String, codec: String, needs: String)] {
        var keyed = [("video.codec", video.codec)]
        for (index, rendition) in (renditions ?? []).enumerated() {
            keyed.append(("renditions[\(index)].video.codec", rendition.video.codec))
        }
        // Numbered frames take an image codec; the image codecs take nothing else.
        if container == .frames {
            return keyed.filter { !$0.1.isImage }.map { ($0.0, $0.1.rawValue, "mp4, mov, mkv or hls") }
        }
        let images = keyed.filter { $0.1.isImage }.map { ($0.0, $0.1.rawValue, "frames") }
        guard images.isEmpty else { return images }
        if container == .mov { return keyed.filter { $0.1 == .av1 }.map { ($0.0, "av1", "mp4 or mkv") } }
        guard container == .mp4 || container == .hls else { return [] }
        let needs = container == .hls ? "mp4, mov or mkv" : "mov or mkv"
        var unsupported: [(key: String, codec: String, needs: String)] = []
        if audio.codec == .pcm { unsupported.append(("audio.codec", "pcm audio", needs)) }
        for (key, codec) in keyed where codec == .ffv1 || codec == .prores {
            unsupported.append((key, codec.rawValue, needs))
        }
        return unsupported
    }
}

/// Named export settings for common deliveries: a preset fills `export`, and keys written
/// beside it override its values. They set encoding only, never the output size or rate.
public enum ExportPreset: String, Sendable, CaseIterable {
    /// MP4, H.264 crf 20 (medium preset), AAC 192 kb/s: plays everywhere.
    case web = "web"
    /// MP4, HEVC crf 24 tagged hvc1, AAC 192 kb/s: small files Apple's players take.
    case hevcApple = "hevc-apple"
    /// MOV, ProRes 422 HQ, PCM: a master for further editing.
    case masterProres = "master-prores"
    /// MKV, FFV1 (lossless), PCM: an archive.
    case archiveFFV1 = "archive-ffv1"

    /// The settings this preset stands for; `gop` is the output's two seconds.
    public func settings(gop: Int) -> ExportSettings {
        switch self {
        case .web:
            return ExportSettings(
                container: .mp4,
                video: .init(codec: .h264, crf: 20, bitrate: nil, preset: "medium", gop: gop, lossless: false),
                audio: .init(codec: .aac, bitrate: 192_000))
        case .hevcApple:
            return ExportSettings(
                container: .mp4,
                video: .init(codec: .hevc, crf: 24, bitrate: nil, preset: "medium", gop: gop, lossless: false),
                audio: .init(codec: .aac, bitrate: 192_000))
        case .masterProres:
            return ExportSettings(
                container: .mov,
                video: .init(codec: .prores, crf: 20, bitrate: nil, preset: "veryfast", gop: 1, lossless: false),
                audio: .init(codec: .pcm, bitrate: 192_000))
        case .archiveFFV1:
            return ExportSettings(
                container: .mkv,
                video: .init(codec: .ffv1, crf: 20, bitrate: nil, preset: "veryfast", gop: 1, lossless: true),
                audio: .init(codec: .pcm, bitrate: 192_000))
        }
    }
}

public struct Asset: Sendable, Codable, Hashable {
    /// Absolute path of the media file, or of numbered frames (`FramePattern`).
    public var path: String
    /// A caption file (SubRip or WebVTT), read as text, never probed as media.
    public var isCaptions = false
    /// Set when `path` names numbered frames: where they start and how fast they play.
    public var sequence: ImageSequence? = nil

    /// Numbered frames played as a video: `frameRate` nil plays them at the output's rate,
    /// `firstFrame` nil starts at the lowest number in the folder.
    public struct ImageSequence: Sendable, Codable, Hashable {
        public var firstFrame: Int?
        public var frameRate: Rational?

        public init(firstFrame: Int?, frameRate: Rational?) {
            self.firstFrame = firstFrame
            self.frameRate = frameRate
        }
    }

    /// The pattern of a sequence's frames.
    public var framePattern: FramePattern? { sequence == nil ? nil : FramePattern(path: path) }

    /// A caption file's format: its extension's, else what its text begins with.
    public var captionFormat: CaptionFormat? { CaptionFormat(fileName: path) }
}

public struct Track: Sendable, Codable, Hashable {
    public enum Kind: String, Sendable, Codable, Hashable, CaseIterable {
        case video, audio
    }

    /// How a track places its items: where each says (`at`), or one after another.
    public enum Mode: String, Sendable, Codable, Hashable, CaseIterable {
        case free, sequence
    }

    public var kind: Kind
    /// Items with their timeline positions resolved: the track's offset and sequence applied.
    public var items: [Item]
    /// Multiplies every item's opacity.
    public var opacity: Double = 1
    /// Draws none of its pictures (its sound still plays unless muted).
    public var hidden = false
    /// Applied to every item after the item's own transform, anchored on the canvas.
    public var transform = Transform.identity
    /// Between adjacent items, in time order, never overlapping.
    public var transitions: [Transition] = []
    /// Applied to each of the track's media pictures after the item's own grade, before
    /// compositing (so inside a transition each item is graded, not their mix).
    public var grade: ColourGrade?
}

/// How a picture is placed into its frame rectangle.
public enum Fit: String, Sendable, Codable, Hashable, CaseIterable {
    /// Fill the rectangle, cropping the overflow equally on both sides.
    case cover
    /// Fit inside the rectangle, leaving the rest transparent.
    case contain
    /// Fill the rectangle exactly, changing the aspect ratio.
    case stretch
}

/// What an item shows once its source range runs past the end of the media.
public enum PastEnd: String, Sendable, Codable, Hashable, CaseIterable {
    /// Keep showing the last frame.
    case hold
    /// Show opaque black in the item's rectangle.
    case black
}

/// A rectangle in fractions: of the canvas for `frame`, of the source picture for `crop`.
public struct Rect: Sendable, Codable, Hashable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public static let unit = Rect(x: 0, y: 0, width: 1, height: 1)
}

/// One clip, still or sound placed on a track.
public struct Item: Sendable, Codable, Hashable {
    public var content: ItemContent
    /// Timeline position.
    public var at: Rational
    /// Length on the timeline.
    public var duration: Rational
    /// Where in the media the item starts.
    public var sourceStart: Rational
    /// How much media the item plays; speed = sourceDuration / duration.
    public var sourceDuration: Rational
    public var fit: Fit
    public var frame: Animated<Rect>
    public var crop: Animated<Rect>
    public var opacity: Animated<Double>
    public var volume: Animated<Double>
    /// Nil when the project did not say: then a source range past the media's end is an error,
    /// and the render holds the last frame if the media turns out a frame short.
    public var pastEnd: PastEnd?
    public var muted: Bool
    /// Applied after `frame`, `fit` and `crop` place the picture.
    public var transform = Transform.identity
    /// Replaces the constant speed when set: media time as a function of item time.
    public var timeMap: TimeMap?
    /// The sound's balance from -1 (left) through 0 (centred) to 1 (right); nil when the project
    /// does not say, so that an item without it encodes, and keys its chunks, as before.
    public var pan: Animated<Double>?
    /// Sound at a speed other than 1 keeps its pitch (time-stretched) instead of playing like tape.
    public var preservesPitch = false
    /// Applied to the item's pictures before the track's grade and before compositing.
    public var grade: ColourGrade?

    public var end: Rational { at + duration }
    public var speed: Rational { sourceDuration / duration }

    /// The media time shown at timeline time `t` (inside the item).
    public func sourceTime(at t: Rational) -> Rational {
        if let timeMap { return timeMap.source(at: t - at) }
        return sourceStart + (t - at) * speed
    }
}
