import FarmCore
import Foundation

/// A soft caption track of an HLS package: one WebVTT file of the whole programme (`cues.vtt`)
/// and its media playlist (`index.m3u8`), the track's cues timed by the frames they show
/// (`CaptionSchedule`'s rule, as the file containers' soft streams), from the output's start.
enum HLSWebVTT {
    static func write(_ track: SubtitleTrack, frames: Range<Int64>, fps: Rational, into folder: URL) throws {
        var vtt = "WEBVTT\n"
        for cue in track.cues {
            let start = Rational(cue.frames.lowerBound - frames.lowerBound) / fps
            let end = Rational(cue.frames.upperBound - frames.lowerBound) / fps
            vtt += "\n\(WebVTTTime.text(start)) --> \(WebVTTTime.text(end))\n\(escaped(cue.text))\n"
        }
        let seconds = Rational(Int64(frames.count)) / fps
        let playlist =
            [
                "#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:\(max(1, seconds.ceil))",
                "#EXT-X-MEDIA-SEQUENCE:1", "#EXT-X-PLAYLIST-TYPE:VOD",
                String(format: "#EXTINF:%.6f,", Double(seconds.numerator) / Double(seconds.denominator)), "cues.vtt",
                "#EXT-X-ENDLIST",
            ].joined(separator: "\n") + "\n"
        try Data(vtt.utf8).write(to: folder.appendingPathComponent("cues.vtt"))
        try Data(playlist.utf8).write(to: folder.appendingPathComponent("index.m3u8"))
    }

    /// A cue's text as WebVTT holds it: `&` and `<` escaped, and no blank line (which would end
    /// the cue) or `-->` inside it.
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: "-->", with: "--&gt;")
            .split(separator: "\n", omittingEmptySubsequences: true).joined(separator: "\n")
    }
}
