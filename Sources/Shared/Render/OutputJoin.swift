import FarmCore
import FarmMedia
import Foundation

/// Every output a job's segments make (`ExportSettings.encodes`): each rendition joined on its
/// own, the first at the output's path and the others beside it (`OUTPUT-STEM.NAME.EXT`), or,
/// for HLS, the package (`HLSPackage`). What the coordinator's join and `--local` both call.
public enum OutputJoin {
    /// The files an output at `destination` is written as, one per encode in order: for HLS the
    /// master playlist alone (its renditions are in its folder).
    public static func files(
        of export: ExportSettings, output: OutputSettings, container: ExportSettings.Container, at destination: URL
    ) -> [URL] {
        guard container != .hls, container != .frames else { return [destination] }
        let stem = destination.deletingPathExtension().lastPathComponent
        let folder = destination.deletingLastPathComponent()
        return export.encodes(of: output).enumerated().map { index, encode in
            index == 0
                ? destination
                : folder.appendingPathComponent("\(stem).\(encode.name).\(destination.pathExtension)")
        }
    }

    /// Joins `segments` and `audio` into every output at `destination`. Numbered frames a
    /// coordinator staged as their chunks were accepted are found under `frameOwner`.
    public static func join(
        export: ExportSettings, output: OutputSettings, segments: [SegmentJoiner.Segment<Chunk>],
        audio: [SegmentJoiner.Segment<AudioBlock>], container: ExportSettings.Container,
        subtitles: [SubtitleTrack], to destination: URL, frameOwner: String? = nil
    ) throws {
        let encodes = export.encodes(of: output)
        if container == .frames {
            try FrameFiles.write(segments: segments, to: destination, owner: frameOwner)
            return
        }
        if container == .hls {
            try HLSPackage.write(
                encodes: encodes, output: output, segments: segments, audio: audio, subtitles: subtitles,
                alignment: export.chunkAlignment, to: destination)
            return
        }
        let files = files(of: export, output: output, container: container, at: destination)
        // The further renditions first: the output's own path appears last, once all are in.
        var written: [URL] = []
        do {
            for index in encodes.indices.reversed() {
                try SegmentJoiner.join(
                    segments: segments, audio: audio, fps: output.fps, sampleRate: output.audio.sampleRate,
                    container: container, subtitles: subtitles, videoStream: index, to: files[index])
                written.append(files[index])
            }
        } catch {
            for file in written { try? FileManager.default.removeItem(at: file) }
            throw error
        }
    }
}
