import FarmCore
import FarmRender
import Foundation

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
}
