import FarmCore
import FarmRender
import Foundation

/// What a join reads from a job's project: its soft subtitles and the stills it asks for.
extension JoinScheduler {
    /// The soft subtitle streams of a job's project, its caption files read now: the cues come
    /// from the project, never from workers.
    static func subtitles(of project: (text: String, file: String, mediaRoot: String), frames: Range<Int64>)
        throws -> [SubtitleTrack]
    {
        let loader = ProjectLoader(mediaRoot: URL(fileURLWithPath: project.mediaRoot))
        let parsed = try loader.parse(text: project.text, file: project.file)
        let soft = parsed.tracks.flatMap(\.items).contains {
            if case .captions(let placement) = $0.content { return placement.soft }
            return false
        }
        guard soft else { return [] }
        return parsed.subtitleTracks(captions: try loader.captions(of: parsed, file: project.file), frames: frames)
    }

    /// The poster and thumbnails a job's export asks for, beside its output (`OutputStills`).
    static func writeStills(
        of project: (text: String, file: String, mediaRoot: String), segments: [SegmentJoiner.Segment<Chunk>],
        fps: Rational, output: String
    ) throws {
        let parsed = try ProjectLoader(mediaRoot: URL(fileURLWithPath: project.mediaRoot)).parse(
            text: project.text, file: project.file)
        guard parsed.export.poster != nil || parsed.export.thumbnails != nil else { return }
        try OutputStills.write(
            parsed.export, segments: segments, width: parsed.output.width, height: parsed.output.height, fps: fps,
            beside: URL(fileURLWithPath: output))
    }
}
