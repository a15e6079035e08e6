import FarmCore
import Foundation

/// The soft stream's cues as ffprobe sees its packets, in output frames counted from the
/// first video frame's time (a container may start the file later than 0: Matroska moves
/// every stream by the video's decoding delay), exact when the container's time base allows,
/// else the nearest frame; with their text read back by ffmpeg's decoder into SubRip.
public func softCues(_ file: URL, fps: Rational = Rational(30)) throws -> [(text: String, frames: Range<Int64>)] {
    let json = try probe(
        file,
        ["-select_streams", "s", "-show_entries", "packet=pts,duration,size", "-show_entries", "stream=time_base"])
    guard let base = (json["streams"] as? [[String: Any]])?.first?["time_base"] as? String,
        let packets = json["packets"] as? [[String: Any]]
    else { throw TestError.failed("no subtitle stream in \(file.lastPathComponent)") }
    let parts = base.split(separator: "/").compactMap { Int64($0) }
    let tick = Rational(parts[0], parts[1])
    let origin = try videoPacketTimes(file).first ?? .zero
    // mov_text fills the gaps between cues with empty samples (two bytes: a zero length).
    let timed = packets.filter { Int($0["size"] as? String ?? "0") ?? 0 > 2 }.map { packet -> Range<Int64> in
        let start = (Rational(packet["pts"] as? Int64 ?? -1) * tick - origin) * fps
        let end =
            (Rational((packet["pts"] as? Int64 ?? -1) + (packet["duration"] as? Int64 ?? 0)) * tick - origin) * fps
        return start.rounded..<end.rounded
    }
    let srt = try ffmpeg(["-i", file.path, "-map", "0:s", "-f", "srt", "-"]).stdout
    let texts = try CaptionFileParser.parse(Array(srt.utf8), file: "read back", format: .srt).map(\.text)
    guard texts.count == timed.count else {
        throw TestError.failed("\(timed.count) packets but \(texts.count) cues read back")
    }
    return zip(texts, timed).map { ($0, $1) }
}

/// The frames whose pictures differ between two renders.
public func differingFrames(_ a: URL, _ b: URL) throws -> [Int64] {
    let (first, second) = (try frameHashes(a), try frameHashes(b))
    guard first.count == second.count else { throw TestError.failed("\(first.count) vs \(second.count) frames") }
    return zip(first, second).enumerated().filter { $0.element.0 != $0.element.1 }.map { Int64($0.offset) }
}
