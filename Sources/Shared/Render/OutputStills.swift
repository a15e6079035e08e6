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
        return files
    }

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

    /// Writes them from `segments` (the output's video, in frame order, the first starting the
    /// output) of an output `width`×`height` at `fps`.
    public static func write(
        _ export: ExportSettings, segments: [SegmentJoiner.Segment<Chunk>], width: Int, height: Int, fps: Rational,
        beside output: URL
    ) throws {
        guard export.poster != nil || export.thumbnails != nil, let first = segments.first?.span.start,
            let end = segments.last?.span.end
        else { return }
        let frames = end - first
        var wanted: [(frame: Int64, width: Int)] = []
        if let poster = export.poster {
            wanted.append((StillFrames.frame(at: poster.time, fps: fps, frames: frames), poster.width ?? width))
        }
        let thumbnailFrames = export.thumbnails.map {
            StillFrames.thumbnails(every: $0.every, fps: fps, frames: frames)
        }
        if let thumbnails = export.thumbnails {
            wanted += (thumbnailFrames ?? []).map { ($0, thumbnails.width) }
        }
        let pictures = try decode(wanted, from: segments, outputStart: first, width: width, height: height)
        if let poster = export.poster {
            let frame = StillFrames.frame(at: poster.time, fps: fps, frames: frames)
            let picture = try pictures[Key(frame: frame, width: poster.width ?? width)].unwrapped("poster")
            try writeWhole(picture.encoded(as: poster.format), to: posterFile(beside: output, poster.format))
        }
        if let thumbnails = export.thumbnails, let thumbnailFrames {
            let tiles = try thumbnailFrames.map {
                try pictures[Key(frame: $0, width: thumbnails.width)].unwrapped("thumbnail")
            }
            try writeSheet(tiles, thumbnails, frames: frames, fps: fps, beside: output)
        }
    }

    private struct Key: Hashable {
        var frame: Int64
        var width: Int
    }

    /// Every wanted frame of the output at its width, each segment decoded once.
    private static func decode(
        _ wanted: [(frame: Int64, width: Int)], from segments: [SegmentJoiner.Segment<Chunk>], outputStart: Int64,
        width: Int, height: Int
    ) throws -> [Key: StillFrame] {
        var pictures: [Key: StillFrame] = [:]
        let widths = Set(wanted.map(\.width))
        for segment in segments {
            let inside = wanted.filter {
                segment.span.start - outputStart <= $0.frame && $0.frame < segment.span.end - outputStart
            }
            guard !inside.isEmpty else { continue }
            for stillWidth in widths {
                let frames = Set(
                    inside.filter { $0.width == stillWidth }.map { $0.frame - (segment.span.start - outputStart) })
                guard !frames.isEmpty else { continue }
                let stillHeight = StillFrames.height(forWidth: stillWidth, outputWidth: width, outputHeight: height)
                for (index, picture) in try StillFrame.frames(
                    frames, of: segment.url.path, width: stillWidth, height: stillHeight)
                {
                    pictures[Key(frame: index + segment.span.start - outputStart, width: stillWidth)] = picture
                }
            }
        }
        return pictures
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
