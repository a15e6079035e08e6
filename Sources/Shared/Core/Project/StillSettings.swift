import Foundation

/// Pictures of the output written beside it (`export.poster`, `export.thumbnails`): what video
/// platforms show before play and while scrubbing. Each is a frame of the output itself, the
/// frame shown at its time, so it never differs from what a player decodes there.
public enum StillFormat: String, Sendable, Codable, Hashable, CaseIterable {
    case jpeg, png, webp

    /// The extension of the files written in this format.
    public var fileExtension: String { self == .jpeg ? "jpg" : rawValue }
}

/// One frame of the output as a picture: `OUTPUT-STEM.poster.jpg`.
public struct PosterSettings: Sendable, Codable, Hashable {
    /// Seconds from the output's start; past its end, the last frame.
    public var time: Rational
    /// Pixels across; nil keeps the output's width. The height keeps the picture's shape.
    public var width: Int?
    public var format: StillFormat

    public init(time: Rational, width: Int? = nil, format: StillFormat = .jpeg) {
        self.time = time
        self.width = width
        self.format = format
    }
}

/// A frame every `every` seconds, small, in one sheet of `columns` tiles a row
/// (`OUTPUT-STEM.thumbnails.jpg`), and a WebVTT track that gives each span of time its tile
/// (`OUTPUT-STEM.thumbnails.vtt`, cues pointing at `SHEET#xywh=x,y,w,h`), as players read for
/// scrubbing previews.
public struct ThumbnailSettings: Sendable, Codable, Hashable {
    /// Seconds between thumbnails.
    public var every: Rational
    public var width: Int
    public var columns: Int
    public var format: StillFormat

    public init(every: Rational, width: Int = 160, columns: Int = 10, format: StillFormat = .jpeg) {
        self.every = every
        self.width = width
        self.columns = columns
        self.format = format
    }
}

/// A few seconds of the output as a looping animated GIF, small (`OUTPUT-STEM.preview.gif`):
/// what a gallery shows on hover.
public struct PreviewSettings: Sendable, Codable, Hashable {
    /// Seconds into the output where it starts.
    public var start: Rational
    public var duration: Rational
    /// Pixels across; the height keeps the output's shape.
    public var width: Int
    /// Pictures a second: each is the output's frame shown at its time.
    public var fps: Rational

    public init(
        start: Rational = Rational(0), duration: Rational = Rational(3), width: Int = 320, fps: Rational = Rational(10)
    ) {
        self.start = start
        self.duration = duration
        self.width = width
        self.fps = fps
    }

    /// The output frames it shows, in order, for an output of `frames` at `outputFPS`.
    public func frames(outputFPS: Rational, frames: Int64) -> [Int64] {
        let count = max(1, (duration * fps).floor)
        return (0..<count).map { StillFrames.frame(at: start + Rational($0) / fps, fps: outputFPS, frames: frames) }
    }
}

/// Which output frames the stills are: the frame shown at a time is the last one that starts
/// at or before it.
public enum StillFrames {
    /// The output frame shown `seconds` into an output of `frames` frames at `fps`.
    public static func frame(at seconds: Rational, fps: Rational, frames: Int64) -> Int64 {
        max(0, min((seconds * fps).floor, frames - 1))
    }

    /// How many thumbnails an output of `frames` holds: thumbnail `k` is frame
    /// `floor(k × every × fps)`, and it lies in the output while `k × every × fps < frames`.
    public static func thumbnailCount(every: Rational, fps: Rational, frames: Int64) -> Int64 {
        guard Rational(0) < every, frames > 0 else { return 0 }
        return (Rational(frames) / (every * fps)).ceil
    }

    /// The frames of the thumbnails: one every `every` seconds from the start, while the
    /// output lasts; only those in `range` when given (a chunk's), found without a walk of
    /// the whole timeline.
    public static func thumbnails(every: Rational, fps: Rational, frames: Int64, in range: Range<Int64>? = nil)
        -> [Int64]
    {
        let count = thumbnailCount(every: every, fps: fps, frames: frames)
        guard count > 0 else { return [] }
        let step = every * fps
        let first = range.map { max(0, (Rational($0.lowerBound) / step).ceil) } ?? 0
        let end = range.map { min(count, (Rational($0.upperBound) / step).ceil) } ?? count
        guard first < end else { return [] }
        return (first..<end).map { (Rational($0) * step).floor }
    }

    /// A still's height for `width`, keeping `outputWidth`×`outputHeight`'s shape, even.
    public static func height(forWidth width: Int, outputWidth: Int, outputHeight: Int) -> Int {
        max(2, Int((Double(width) * Double(outputHeight) / Double(max(outputWidth, 1)) / 2).rounded()) * 2)
    }
}

extension ExportSettings {
    /// The settings that decide a chunk's bytes: stills are made from the chunks afterwards, so
    /// asking for a poster never re-renders one.
    public var withoutStills: ExportSettings {
        var copy = self
        copy.poster = nil
        copy.thumbnails = nil
        copy.preview = nil
        return copy
    }
}

/// One of the output's stills as a worker made it: output frame `frame` at `width`, a PNG
/// (lossless, so the join's sheet holds exactly the decoded frame), base64.
public struct StillTile: Codable, Sendable, Hashable {
    public var frame: Int64
    public var width: Int
    public var png: String

    public init(frame: Int64, width: Int, png: [UInt8]) {
        self.frame = frame
        self.width = width
        self.png = Data(png).base64EncodedString()
    }
}
