import FarmCore
import FarmDataFolder
import FarmMedia
import FarmRender
import Foundation

/// What a join reads from a job's project: its soft subtitles and the stills it asks for.
extension JoinScheduler {
    /// A job's project as the farm reads it (its media is not probed again).
    static func parse(_ project: (text: String, file: String, mediaRoot: String)) throws -> Project {
        try ProjectLoader(mediaRoot: URL(fileURLWithPath: project.mediaRoot)).parse(
            text: project.text, file: project.file)
    }

    /// The soft subtitle streams of a job's project, its caption files read now: the cues come
    /// from the project, never from workers.
    static func subtitles(
        of project: (text: String, file: String, mediaRoot: String), parsed: Project, frames: Range<Int64>
    ) throws -> [SubtitleTrack] {
        let soft = parsed.tracks.flatMap(\.items).contains {
            if case .captions(let placement) = $0.content { return placement.soft }
            return false
        }
        guard soft else { return [] }
        let loader = ProjectLoader(mediaRoot: URL(fileURLWithPath: project.mediaRoot))
        return parsed.subtitleTracks(captions: try loader.captions(of: parsed, file: project.file), frames: frames)
    }

    /// The stills a job's export asks for, beside its output (`OutputStills`): those its
    /// workers made (`JobFolder.keepStills`) as they are, the rest (chunks from the segment
    /// cache, older workers) decoded from the segments here.
    /// Returns how many stills the workers made, of how many, for the log.
    @discardableResult
    static func writeStills(
        of parsed: Project, segments: [SegmentJoiner.Segment<Chunk>], folder: JobFolder, fps: Rational, output: String
    ) throws -> (made: Int, of: Int) {
        let (export, size) = (parsed.export, parsed.output)
        guard export.poster != nil || export.thumbnails != nil || export.preview != nil else { return (0, 0) }
        var made: [OutputStills.Key: StillFrame] = [:]
        // Workers count output frames from the timeline's start, where a farm job's output starts.
        let frames = (segments.last?.span.end ?? 0) - (segments.first?.span.start ?? 0)
        let keys = OutputStills.allKeys(export, frames: frames, fps: fps, width: size.width)
        if segments.first?.span.start == 0 {
            for key in keys {
                let file = folder.still(frame: key.frame, width: key.width)
                guard FileManager.default.fileExists(atPath: file.path) else { continue }
                let height = StillFrames.height(forWidth: key.width, outputWidth: size.width, outputHeight: size.height)
                made[key] = try? StillFrame.frames([0], of: file.path, width: key.width, height: height)[0]
            }
        }
        try OutputStills.write(
            export, segments: segments, width: size.width, height: size.height, fps: fps, made: made,
            beside: URL(fileURLWithPath: output))
        return (made.count, keys.count)
    }
}
