import FarmCore
import FarmMedia
import Foundation

/// The DASH manifest (ISO/IEC 23009-1, the live profile's `SegmentTemplate` with a
/// `SegmentTimeline`) of an HLS package's own CMAF segments: `STEM.mpd` beside `STEM.m3u8`
/// names the same `init.mp4` and `NNNNN.m4s` files, so one set of segments on disk serves
/// both. Written here rather than by libavformat's dash muxer, which writes segments of its
/// own: a second copy of every rendition. Each segment's length is its media playlist's
/// `#EXTINF`, in frames for video and samples for sound. Captions stay HLS-only (WebVTT
/// segments in DASH need a packaging of their own).
public struct DASHManifest: Sendable {
    public struct Representation: Sendable {
        /// Its name (`1080p`, `audio`), and its media playlist (`NAME/index.m3u8`) as a path
        /// from the manifest's folder.
        public var id: String
        public var playlist: String
        public var codec: String
        /// Bits per second: the peak segment's, so a player that gets it never stalls.
        public var bandwidth: Int
        public var kind: Kind

        public enum Kind: Sendable {
            case video(width: Int, height: Int, fps: Rational)
            case audio(sampleRate: Int, channels: Int)
        }

        public init(id: String, playlist: String, codec: String, bandwidth: Int, kind: Kind) {
            self.id = id
            self.playlist = playlist
            self.codec = codec
            self.bandwidth = bandwidth
            self.kind = kind
        }
    }

    public var representations: [Representation]
    public var duration: Rational

    public init(representations: [Representation], duration: Rational) {
        self.representations = representations
        self.duration = duration
    }

    /// The manifest of a package whose media playlists are under `folder` (the manifest's).
    public func text(in folder: URL) throws -> String {
        let videos = representations.filter { if case .video = $0.kind { true } else { false } }
        let sounds = representations.filter { if case .audio = $0.kind { true } else { false } }
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" profiles="urn:mpeg:dash:profile:isoff-live:2011" "#
                + #"type="static" mediaPresentationDuration="\#(Self.duration(duration))" "#
                + #"minBufferTime="\#(Self.duration(HLSPackage.segmentSeconds))">"#,
            #"  <Period id="0" start="PT0S">"#,
        ]
        if !videos.isEmpty {
            lines.append(
                #"    <AdaptationSet id="0" contentType="video" mimeType="video/mp4" segmentAlignment="true" "#
                    + #"startWithSAP="1">"#)
            for video in videos { lines += try representation(video, in: folder) }
            lines.append("    </AdaptationSet>")
        }
        for (index, sound) in sounds.enumerated() {
            lines.append(
                #"    <AdaptationSet id="\#(index + 1)" contentType="audio" mimeType="audio/mp4" "#
                    + #"segmentAlignment="true" startWithSAP="1">"#)
            lines += try representation(sound, in: folder)
            lines.append("    </AdaptationSet>")
        }
        lines += ["  </Period>", "</MPD>", ""]
        return lines.joined(separator: "\n")
    }

    private func representation(_ item: Representation, in folder: URL) throws -> [String] {
        let timescale: Int64
        var attributes =
            #"id="\#(Self.escaped(item.id))" codecs="\#(Self.escaped(item.codec))" "#
            + #"bandwidth="\#(item.bandwidth)""#
        var inner: [String] = []
        switch item.kind {
        case .video(let width, let height, let fps):
            // A frame is `denominator` units: every segment is a whole number of them.
            timescale = fps.numerator
            attributes +=
                #" width="\#(width)" height="\#(height)" frameRate="\#(fps.numerator)/\#(fps.denominator)""#
                + #" sar="1:1""#
        case .audio(let sampleRate, let channels):
            timescale = Int64(sampleRate)
            attributes += #" audioSamplingRate="\#(sampleRate)""#
            inner.append(
                #"        <AudioChannelConfiguration "#
                    + #"schemeIdUri="urn:mpeg:dash:23003:3:audio_channel_configuration:2011" value="\#(channels)"/>"#)
        }
        let playlist = folder.appendingPathComponent(item.playlist)
        let segments = try Self.segments(of: playlist)
        // A URL (percent-encoded, as the master playlist's), in a template (`$` doubled), in XML.
        let folder = HLSMasterPlaylist.encoded((item.playlist as NSString).deletingLastPathComponent)
        let base = folder.replacingOccurrences(of: "$", with: "$$")
        var timeline: [String] = []
        var start: Int64 = 0
        for seconds in segments {
            let units = Int64((seconds * Double(timescale)).rounded())
            timeline.append(#"            <S t="\#(start)" d="\#(units)"/>"#)
            start += units
        }
        return [#"      <Representation \#(attributes)>"#] + inner + [
            #"        <SegmentTemplate timescale="\#(timescale)" startNumber="1" "#
                + #"initialization="\#(Self.escaped(base))/init.mp4" media="\#(Self.escaped(base))/$Number%05d$.m4s">"#,
            "          <SegmentTimeline>",
        ] + timeline + ["          </SegmentTimeline>", "        </SegmentTemplate>", "      </Representation>"]
    }

    /// The `#EXTINF` seconds of a media playlist's segments, checked to be the numbered files
    /// the template names (`00001.m4s`, ...) after `init.mp4`.
    static func segments(of playlist: URL) throws -> [Double] {
        try HLSMediaSegments(playlist).segments.enumerated().map { index, segment in
            guard segment.uri == String(format: "%05d.m4s", index + 1) else {
                throw FFmpegError(
                    operation: "read \(playlist.path)", message: "segment \(segment.uri) is not numbered in order")
            }
            return segment.seconds
        }
    }

    /// An `xs:duration` to the millisecond: `PT120.000S`.
    static func duration(_ value: Rational) -> String {
        let milliseconds = (value * Rational(1000)).rounded
        return String(format: "PT%lld.%03lldS", milliseconds / 1000, milliseconds % 1000)
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;")
    }
}
