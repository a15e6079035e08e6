import FarmCore
import FarmMedia
import Foundation

/// An HLS output (`export.container: "hls"`, an output ending in `.m3u8`): the master playlist
/// at the output's path and, in a folder of the playlist's name beside it, one media playlist
/// per rendition (`NAME/index.m3u8`, its CMAF segments `init.mp4`, `00001.m4s`, ...) and one
/// for the sound (`audio/index.m3u8`), every variant's audio group.
///
/// The media playlists and segments are libavformat's hls muxer's, fed the joined packets of
/// each rendition's stream; the master playlist is written here, from what the segments
/// measure: the muxer's own states the encoders' nominal rates, which a quality-based (crf)
/// encode does not have.
public enum HLSPackage {
    /// Seconds a segment aims at (Apple's authoring guide: 6), rounded to whole GOPs.
    public static let segmentSeconds = Rational(6)

    /// Frames in a segment: the whole GOPs (`alignment` frames) nearest `segmentSeconds`, at
    /// least one. Segments are cut at keyframes, so every rendition's segments cover the same frames.
    public static func segmentFrames(fps: Rational, alignment: Int64) -> Int64 {
        let alignment = max(1, alignment)
        let goal = (segmentSeconds * fps).rounded
        return max(1, (Rational(goal, alignment)).rounded) * alignment
    }

    /// The DASH manifest of the same segments beside `master` (`DASHManifest`): `out.mpd`.
    public static func dashManifest(of master: URL) -> URL {
        master.deletingPathExtension().appendingPathExtension("mpd")
    }

    /// The folder of `master`'s media playlists: its name without `.m3u8`.
    public static func folder(of master: URL) -> URL { master.deletingPathExtension() }

    /// Writes the package of `encodes` (each the segments' video stream of its place) and
    /// `audio`; the folder appears whole, then the master playlist, so a player never finds a
    /// master without its media (nothing half-written is visible).
    public static func write(
        encodes: [Rendition], output: OutputSettings, segments: [SegmentJoiner.Segment<Chunk>],
        audio: [SegmentJoiner.Segment<AudioBlock>], subtitles: [SubtitleTrack] = [], alignment: Int64,
        to master: URL
    ) throws {
        let final = folder(of: master)
        let parent = master.deletingLastPathComponent()
        let scratch = parent.appendingPathComponent(".\(final.lastPathComponent).hls-\(getpid())-\(UUID().uuidString)")
        let manager = FileManager.default
        defer { try? manager.removeItem(at: scratch) }
        let seconds = Rational(segmentFrames(fps: output.fps, alignment: alignment)) / output.fps
        var variants: [HLSMasterPlaylist.Variant] = []
        for (index, encode) in encodes.enumerated() {
            let playlist = try playlistURL(scratch, encode.name)
            try SegmentJoiner.join(
                segments: segments, audio: [], fps: output.fps, sampleRate: output.audio.sampleRate, subtitles: [],
                videoStream: index, into: try Muxer(hlsPlaylist: playlist.path, segmentSeconds: seconds))
            let codec =
                try segments.first.map {
                    try DemuxedStream(path: $0.url.path, kind: .video, ordinal: index).codecString
                } ?? nil
            variants.append(
                HLSMasterPlaylist.Variant(
                    uri: "\(final.lastPathComponent)/\(encode.name)/index.m3u8", rates: try HLSSegmentRates(playlist),
                    codec: codec ?? "", width: encode.width, height: encode.height, fps: output.fps))
        }
        var sound: HLSMasterPlaylist.Sound?
        if !audio.isEmpty {
            let playlist = try playlistURL(scratch, "audio")
            try SegmentJoiner.joinSound(
                audio: audio, sampleRate: output.audio.sampleRate,
                into: try Muxer(hlsPlaylist: playlist.path, segmentSeconds: seconds))
            let codec = try DemuxedStream(path: audio[0].url.path, kind: .audio).codecString
            sound = HLSMasterPlaylist.Sound(
                uri: "\(final.lastPathComponent)/audio/index.m3u8", rates: try HLSSegmentRates(playlist),
                codec: codec ?? "", channels: output.audio.channels)
        }
        let frames = (segments.first?.span.start ?? 0)..<(segments.last?.span.end ?? 0)
        var captions: [HLSMasterPlaylist.Captions] = []
        for (index, track) in subtitles.enumerated() {
            // A folder per track, named by its language (and place, when two share one).
            let shared = subtitles.filter { $0.language == track.language }.count > 1
            let name = "subtitles-\(track.language)" + (shared ? "-\(index + 1)" : "")
            let folder = try playlistURL(scratch, name).deletingLastPathComponent()
            try HLSWebVTT.write(track, frames: frames, fps: output.fps, into: folder)
            captions.append(
                HLSMasterPlaylist.Captions(
                    uri: "\(final.lastPathComponent)/\(name)/index.m3u8", language: track.language,
                    name: shared ? "\(track.language) \(index + 1)" : track.language))
        }
        let text = HLSMasterPlaylist(variants: variants, sound: sound, captions: captions).text
        var representations = zip(encodes, variants).map { encode, variant in
            DASHManifest.Representation(
                id: encode.name, playlist: variant.uri, codec: variant.codec, bandwidth: variant.rates.peak,
                kind: .video(width: variant.width, height: variant.height, fps: output.fps))
        }
        if let sound {
            representations.append(
                DASHManifest.Representation(
                    id: "audio", playlist: sound.uri, codec: sound.codec, bandwidth: sound.rates.peak,
                    kind: .audio(sampleRate: output.audio.sampleRate, channels: sound.channels)))
        }
        let dash = DASHManifest(
            representations: representations, duration: Rational(Int64(frames.count)) / output.fps)
        // The old package (a render replacing its output) goes only once the new one is whole.
        let old = parent.appendingPathComponent(".\(final.lastPathComponent).old-\(getpid())-\(UUID().uuidString)")
        if manager.fileExists(atPath: final.path) { try manager.moveItem(at: final, to: old) }
        defer { try? manager.removeItem(at: old) }
        try manager.moveItem(at: scratch, to: final)
        // The DASH manifest before the master playlist, which appears last.
        let file = AtomicFile(destination: master)
        let manifest = AtomicFile(destination: dashManifest(of: master))
        do {
            try Data(try dash.text(in: parent).utf8).write(to: manifest.temporary)
            try manifest.commit()
            try Data(text.utf8).write(to: file.temporary)
            try file.commit()
        } catch {
            manifest.discard()
            file.discard()
            try? manager.removeItem(at: dashManifest(of: master))
            try? manager.removeItem(at: final)
            throw error
        }
    }

    /// Bytes of the package: the master playlist and every file in its folder.
    public static func bytes(of master: URL) -> Int64 {
        let size = { (file: URL) in (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int64) ?? 0
        }
        return size(master) + size(dashManifest(of: master)) + FolderSize.bytes(of: folder(of: master))
    }

    private static func playlistURL(_ scratch: URL, _ name: String) throws -> URL {
        let folder = scratch.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent("index.m3u8")
    }
}

/// A media playlist's segments in order: each one's URI and `#EXTINF` seconds, as the master
/// playlist's rates and the DASH manifest's timeline both read them.
struct HLSMediaSegments {
    var segments: [(uri: String, seconds: Double)] = []

    init(_ playlist: URL) throws {
        var pending: Double?
        for line in try String(contentsOf: playlist, encoding: .utf8).split(whereSeparator: \.isNewline) {
            if line.hasPrefix("#EXTINF:") {
                pending = Double(line.dropFirst(8).prefix { $0 != "," })
            } else if !line.hasPrefix("#"), let seconds = pending {
                segments.append((String(line), seconds))
                pending = nil
            }
        }
    }
}

/// A media playlist's segments as they are on disk: each one's bytes and `#EXTINF` seconds.
public struct HLSSegmentRates: Sendable {
    /// The highest bit rate of any segment, bits per second (RFC 8216's peak segment bit rate).
    public var peak: Int
    /// All segments' bits over their seconds.
    public var average: Int

    public init(_ playlist: URL) throws {
        let folder = playlist.deletingLastPathComponent()
        var peak = 0.0
        var bits = 0.0
        var seconds = 0.0
        for (uri, length) in try HLSMediaSegments(playlist).segments {
            let size =
                try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(uri).path)[.size]
                as? Int ?? 0
            let segmentBits = Double(size) * 8
            if length > 0 { peak = max(peak, segmentBits / length) }
            bits += segmentBits
            seconds += length
        }
        self.peak = Int(peak.rounded(.up))
        self.average = seconds > 0 ? Int((bits / seconds).rounded(.up)) : 0
    }
}

/// The master playlist's text (RFC 8216, 4.3.4): a variant per rendition, each with its
/// measured rates (its own plus its audio's), resolution, frame rate and codecs, sharing one
/// audio group.
public struct HLSMasterPlaylist: Sendable {
    public struct Variant: Sendable {
        public var uri: String
        public var rates: HLSSegmentRates
        public var codec: String
        public var width: Int
        public var height: Int
        public var fps: Rational

        package init(uri: String, rates: HLSSegmentRates, codec: String, width: Int, height: Int, fps: Rational) {
            self.uri = uri
            self.rates = rates
            self.codec = codec
            self.width = width
            self.height = height
            self.fps = fps
        }
    }

    public struct Sound: Sendable {
        public var uri: String
        public var rates: HLSSegmentRates
        public var codec: String
        public var channels: Int

        package init(uri: String, rates: HLSSegmentRates, codec: String, channels: Int) {
            self.uri = uri
            self.rates = rates
            self.codec = codec
            self.channels = channels
        }
    }

    /// A soft caption track as a WebVTT subtitles rendition (`HLSWebVTT`).
    public struct Captions: Sendable {
        public var uri: String
        public var language: String
        public var name: String
    }

    public var variants: [Variant]
    public var sound: Sound?
    public var captions: [Captions] = []

    package init(variants: [Variant], sound: Sound?, captions: [Captions] = []) {
        self.variants = variants
        self.sound = sound
        self.captions = captions
    }

    public var text: String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-INDEPENDENT-SEGMENTS"]
        if let sound {
            lines.append(
                "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"audio\",NAME=\"audio\",DEFAULT=YES,AUTOSELECT=YES,"
                    + "CHANNELS=\"\(sound.channels)\",URI=\"\(Self.encoded(sound.uri))\"")
        }
        for track in captions {
            lines.append(
                "#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"subtitles\",NAME=\"\(track.name)\","
                    + "LANGUAGE=\"\(track.language)\",DEFAULT=NO,AUTOSELECT=YES,URI=\"\(Self.encoded(track.uri))\"")
        }
        for variant in variants {
            let codecs = [variant.codec, sound?.codec ?? ""].filter { !$0.isEmpty }.joined(separator: ",")
            var attributes = [
                "BANDWIDTH=\(variant.rates.peak + (sound?.rates.peak ?? 0))",
                "AVERAGE-BANDWIDTH=\(variant.rates.average + (sound?.rates.average ?? 0))",
            ]
            if !codecs.isEmpty { attributes.append("CODECS=\"\(codecs)\"") }
            attributes.append("RESOLUTION=\(variant.width)x\(variant.height)")
            attributes.append("FRAME-RATE=\(Self.decimal(variant.fps))")
            if sound != nil { attributes.append("AUDIO=\"audio\"") }
            if !captions.isEmpty { attributes.append("SUBTITLES=\"subtitles\"") }
            lines.append("#EXT-X-STREAM-INF:" + attributes.joined(separator: ","))
            lines.append(Self.encoded(variant.uri))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A rate to three decimals, as RFC 8216 writes FRAME-RATE (29.970).
    static func decimal(_ rate: Rational) -> String {
        let thousandths = (rate * Rational(1000)).rounded
        return String(format: "%lld.%03lld", thousandths / 1000, thousandths % 1000)
    }

    /// A URI's path with what a URI may not hold percent-encoded (a space in the output's name).
    static func encoded(_ uri: String) -> String {
        uri.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? uri
    }
}
