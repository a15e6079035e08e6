import Foundation

/// One encode of the composited canvas (`export.renditions`): a platform's ladder of sizes and
/// bitrates made in one pass. Each frame is composited once, at the output's size, and every
/// rendition's encoder takes it scaled to its own size (libswscale, bicubic, bit-exact), so a
/// rendition's frames are the same whichever other renditions the job makes.
public struct Rendition: Sendable, Codable, Hashable {
    /// Names the rendition's file (`OUTPUT-STEM.NAME.mp4`) and its HLS playlist.
    public var name: String
    public var width: Int
    public var height: Int
    /// `export.video` with this rendition's keys over it; the GOP is always the export's, so
    /// every rendition's keyframes fall on the same frames (one chunk grid, aligned segments).
    public var video: ExportSettings.Video

    public init(name: String, width: Int, height: Int, video: ExportSettings.Video) {
        self.name = name
        self.width = width
        self.height = height
        self.video = video
    }

    /// `output` at this rendition's size: what its encoder is opened for.
    public func output(_ output: OutputSettings) -> OutputSettings {
        var sized = output
        sized.width = width
        sized.height = height
        return sized
    }

    /// Whether `name` may name a rendition: it becomes part of file names and URLs.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 32
            && name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }
}

extension ExportSettings {
    /// What a job encodes, in order: `renditions` when given, else `video` at the output's size.
    /// The first is the output itself; a video segment holds one stream per encode, in this order.
    public func encodes(of output: OutputSettings) -> [Rendition] {
        if let renditions, !renditions.isEmpty { return renditions }
        return [Rendition(name: "", width: output.width, height: output.height, video: video)]
    }

    /// Every video setting a job encodes with: `video` and each rendition's.
    public var videoSettings: [Video] { [video] + (renditions ?? []).map(\.video) }

    /// The frame multiple every chunk boundary must fall on, for every encode.
    public var chunkAlignment: Int64 { videoSettings.map(\.chunkAlignment).max() ?? 1 }
}
