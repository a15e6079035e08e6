import FarmCore
import FarmDataFolder
import FarmMedia
import FarmRender
import FarmStore
import Foundation

/// The live preview of a render: the contiguous prefix of a job's accepted video chunks, from
/// its first frame, as an HLS EVENT playlist whose media segments are the chunks' own segments
/// remuxed (`FragmentedVideo`), growing as chunks are accepted and ended (`EXT-X-ENDLIST`)
/// once every chunk is in or the job has ended. A chunk the segment cache did for this job
/// joins it once the join has put its segment in the job's folder.
struct LivePreview: Sendable {
    /// Every video chunk, in frame order, and whether its segment is accepted in the job's folder.
    var chunks: [(chunk: Chunk, accepted: Bool)]
    var fps: Rational
    var ended: Bool

    init(job: JobRecord, statuses: [ChunkStatus], folder: JobFolder) {
        fps = job.fps
        ended = [.done, .failed, .cancelled].contains(job.state)
        chunks = statuses.filter { $0.kind == .video }.sorted { $0.index < $1.index }.map { status in
            let chunk = Chunk(index: status.index, start: status.start, end: status.end)
            let file = folder.result(kind: .video, index: status.index).path
            return (chunk, [.done, .reused].contains(status.state) && FileManager.default.fileExists(atPath: file))
        }
    }

    /// The chunks the preview shows: those accepted from the first on, up to the first missing.
    var prefix: [Chunk] { Array(chunks.prefix { $0.accepted }.map(\.chunk)) }

    var text: String {
        let longest = chunks.map { Rational($0.chunk.end - $0.chunk.start) / fps }.max() ?? Rational(1)
        var lines = [
            "#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-PLAYLIST-TYPE:EVENT",
            // Known from the plan, so it never changes while the playlist grows (RFC 8216, 4.3.3.1).
            "#EXT-X-TARGETDURATION:\(max(1, longest.ceil))", "#EXT-X-INDEPENDENT-SEGMENTS",
            "#EXT-X-MAP:URI=\"preview/init.mp4\"",
        ]
        let shown = prefix
        for chunk in shown {
            let seconds = Double(chunk.end - chunk.start) * Double(fps.denominator) / Double(fps.numerator)
            lines.append(String(format: "#EXTINF:%.6f,", seconds))
            lines.append("preview/\(chunk.index).m4s")
        }
        if ended || shown.count == chunks.count { lines.append("#EXT-X-ENDLIST") }
        return lines.joined(separator: "\n") + "\n"
    }
}
