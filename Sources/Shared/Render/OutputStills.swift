import FarmCore
import FarmMedia
import Foundation

/// Writes the poster and the thumbnail sheet an export asks for beside its output, from the
/// chunk segments the output was joined from: the output's frames are those segments' frames
/// (joined by stream copy), so each still is the output's own frame, and only the segments that
/// hold a still are decoded, each up to its last still.
///
/// Beside `DIR/NAME.mp4`: `DIR/NAME.poster.jpg`, `DIR/NAME.thumbnails.jpg` and
/// `DIR/NAME.thumbnails.vtt` (extensions by format), each written whole or not at all.
public enum OutputStills {
    /// The files `export` asks for beside `output`.
    public static func files(of export: ExportSettings, beside output: URL) -> [URL] {
        var files: [URL] = []
        if let poster = export.poster { files.append(posterFile(beside: output, poster.format)) }
        if let thumbnails = export.thumbnails {
            files += [sheetFile(beside: output, thumbnails.format), trackFile(beside: output)]
        }
        if export.preview != nil { files.append(previewFile(beside: output)) }
        return files
    }

    public static func previewFile(beside output: URL) -> URL { sibling(of: output, "preview.gif") }

    public static func posterFile(beside output: URL, _ format: StillFormat) -> URL {
        sibling(of: output, "poster.\(format.fileExtension)")
    }

    public static func sheetFile(beside output: URL, _ format: StillFormat) -> URL {
        sibling(of: output, "thumbnails.\(format.fileExtension)")
    }

    public static func trackFile(beside output: URL) -> URL { sibling(of: output, "thumbnails.vtt") }

    private static func sibling(of output: URL, _ suffix: String) -> URL {
        output.deletingPathExtension().appendingPathExtension(suffix)
    }

    /// A still: an output frame at a width.
    public struct Key: Hashable, Sendable {
        public var frame: Int64
        public var width: Int

        public init(frame: Int64, width: Int) {
            self.frame = frame
            self.width = width
        }
    }

    /// The thumbnails of an output of `frames` frames, in time order (those in `range` alone
    /// when given).
    public static func thumbnailKeys(
        _ export: ExportSettings, frames: Int64, fps: Rational, in range: Range<Int64>? = nil
    )
        -> [Key]
    {
        guard let thumbnails = export.thumbnails else { return [] }
        return StillFrames.thumbnails(every: thumbnails.every, fps: fps, frames: frames, in: range).map {
            Key(frame: $0, width: thumbnails.width)
        }
    }

    /// The poster of an output `width` wide.
    public static func posterKey(_ export: ExportSettings, frames: Int64, fps: Rational, width: Int) -> Key? {
        export.poster.map {
            Key(frame: StillFrames.frame(at: $0.time, fps: fps, frames: frames), width: $0.width ?? width)
        }
    }

    /// The pictures of the animated preview, in order.
    public static func previewKeys(_ export: ExportSettings, frames: Int64, fps: Rational) -> [Key] {
        guard let preview = export.preview else { return [] }
        return preview.frames(outputFPS: fps, frames: frames).map { Key(frame: $0, width: preview.width) }
    }

    /// Every still `export` asks for, each once: the poster, the thumbnails, the preview's
    /// pictures; those in `range` (output frames, a chunk's) alone when given, so that what a
    /// chunk costs does not grow with the timeline.
    public static func allKeys(
        _ export: ExportSettings, frames: Int64, fps: Rational, width: Int, in range: Range<Int64>? = nil
    ) -> [Key] {
        var seen = Set<Key>()
        let few =
            (posterKey(export, frames: frames, fps: fps, width: width).map { [$0] } ?? [])
            + previewKeys(export, frames: frames, fps: fps)
        let keys =
            few.filter { range?.contains($0.frame) ?? true }
            + thumbnailKeys(export, frames: frames, fps: fps, in: range)
        return keys.filter { seen.insert($0).inserted }
    }

    /// The stills of `keys` that `segment` holds, for an output starting at `outputStart`
    /// (timeline frame) `width`×`height`: each GOP that holds one decoded from its keyframe.
    public static func make(
        _ keys: [Key], in segment: SegmentJoiner.Segment<Chunk>, outputStart: Int64, width: Int, height: Int,
        fps: Rational, video: ExportSettings.Video
    ) throws -> [Key: StillFrame] {
        let first = segment.span.start - outputStart
        let inside = keys.filter { first <= $0.frame && $0.frame < segment.span.end - outputStart }
        var pictures: [Key: StillFrame] = [:]
        for stillWidth in Set(inside.map(\.width)) {
            let frames = Set(inside.filter { $0.width == stillWidth }.map { $0.frame - first })
            let stillHeight = StillFrames.height(forWidth: stillWidth, outputWidth: width, outputHeight: height)
            // Every segment starts with a keyframe and has one every `gop` frames from there.
            let gop = video.isIntraOnly ? 1 : video.gop
            for (index, picture) in try StillFrame.frames(
                frames, of: segment.url.path, width: stillWidth, height: stillHeight, fps: fps, gop: gop)
            {
                pictures[Key(frame: index + first, width: stillWidth)] = picture
            }
        }
        return pictures
    }

    /// Writes them from `segments` (the output's video, in frame order, the first starting the
    /// output) of an output `width`×`height` at `fps`. The stills in `made` (made as the chunks
    /// were rendered) are taken as they are; the rest are decoded from their segments here.
    public static func write(
        _ export: ExportSettings, segments: [SegmentJoiner.Segment<Chunk>], width: Int, height: Int, fps: Rational,
        made: [Key: StillFrame] = [:], beside output: URL
    ) throws {
        guard export.poster != nil || export.thumbnails != nil || export.preview != nil,
            let first = segments.first?.span.start, let end = segments.last?.span.end
        else { return }
        let frames = end - first
        let poster = posterKey(export, frames: frames, fps: fps, width: width)
        let thumbnails = thumbnailKeys(export, frames: frames, fps: fps)
        var pictures = made
        // In frame order, each segment handed its own: one pass, however many segments.
        let missing = allKeys(export, frames: frames, fps: fps, width: width).filter { pictures[$0] == nil }
            .sorted { $0.frame < $1.frame }
        var next = 0
        for segment in segments where next < missing.count {
            var end = next
            while end < missing.count, missing[end].frame < segment.span.end - first { end += 1 }
            guard end > next else { continue }
            pictures.merge(
                try make(
                    Array(missing[next..<end]), in: segment, outputStart: first, width: width, height: height,
                    fps: fps, video: export.video)
            ) { kept, _ in kept }
            next = end
        }
        if let settings = export.poster, let poster {
            let picture = try pictures[poster].unwrapped("poster")
            try writeWhole(picture.encoded(as: settings.format), to: posterFile(beside: output, settings.format))
        }
        if let settings = export.thumbnails {
            let tiles = try thumbnails.map { try pictures[$0].unwrapped("thumbnail") }
            try writeSheet(tiles, settings, frames: frames, fps: fps, beside: output)
        }
        if let settings = export.preview {
            let shown = try previewKeys(export, frames: frames, fps: fps).map { try pictures[$0].unwrapped("preview") }
            let file = AtomicFile(destination: previewFile(beside: output))
            do {
                try AnimatedGIF.write(shown, fps: settings.fps, to: file.temporary.path)
                try file.commit()
            } catch {
                file.discard()
                throw error
            }
        }
    }

    /// The sheet, `columns` tiles a row in time order, and its WebVTT track: each thumbnail's
    /// cue runs from its time to the next one's (the last to the output's end).
    private static func writeSheet(
        _ tiles: [StillFrame], _ settings: ThumbnailSettings, frames: Int64, fps: Rational, beside output: URL
    ) throws {
        guard let tile = tiles.first else { return }
        let columns = min(settings.columns, tiles.count)
        let rows = (tiles.count + columns - 1) / columns
        let sheet = StillFrame(width: tile.width * columns, height: tile.height * rows)
        let sheetURL = sheetFile(beside: output, settings.format)
        var track = "WEBVTT\n"
        let outputEnd = Rational(frames) / fps
        for (index, picture) in tiles.enumerated() {
            let (x, y) = ((index % columns) * tile.width, (index / columns) * tile.height)
            sheet.paste(picture, x: x, y: y)
            let start = settings.every * Rational(Int64(index))
            let end = Rational.min(start + settings.every, outputEnd)
            track += """

                \(WebVTTTime.text(start)) --> \(WebVTTTime.text(end))
                \(sheetURL.lastPathComponent)#xywh=\(x),\(y),\(tile.width),\(tile.height)

                """
        }
        try writeWhole(sheet.encoded(as: settings.format), to: sheetURL)
        try writeWhole(Array(track.utf8), to: trackFile(beside: output))
    }

    private static func writeWhole(_ bytes: [UInt8], to url: URL) throws {
        let file = AtomicFile(destination: url)
        do {
            try Data(bytes).write(to: file.temporary)
            try file.commit()
        } catch {
            file.discard()
            throw error
        }
    }
}

/// `HH:MM:SS.mmm`, as WebVTT cue timings are written (milliseconds rounded down).
enum WebVTTTime {
    static func text(_ seconds: Rational) -> String {
        let milliseconds = (seconds * Rational(1000)).floor
        return String(
            format: "%02lld:%02lld:%02lld.%03lld", milliseconds / 3_600_000, milliseconds / 60_000 % 60,
            milliseconds / 1000 % 60, milliseconds % 1000)
    }
}

extension Optional where Wrapped == StillFrame {
    fileprivate func unwrapped(_ what: String) throws -> StillFrame {
        guard let self else { throw FFmpegError(operation: "stills", message: "the \(what)'s frame was not decoded") }
        return self
    }
}
