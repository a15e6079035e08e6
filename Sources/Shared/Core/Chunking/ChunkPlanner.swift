/// Splits a timeline's output frames into chunks.
public enum ChunkPlanner {
    public enum Size: Sendable, Hashable {
        /// About this much timeline per chunk (rounded to whole frames, at least one).
        case seconds(Rational)
        /// This many chunks of near-equal length (never more than there are frames).
        case count(Int)
        /// Exactly this many frames per chunk (the last may be shorter).
        case frames(Int64)
    }

    /// Chunks whose boundaries are multiples of `alignment` frames (the GOP for lossy
    /// exports, see `ExportSettings.Video.encodesPerGOP`); sizes round to that multiple.
    public static func plan(frameCount: Int64, fps: Rational, size: Size, alignment: Int64 = 1) -> [Chunk] {
        guard frameCount > 0 else { return [] }
        let unit = max(1, alignment)
        func aligned(_ length: Int64) -> Int64 { max(unit, (length + unit - 1) / unit * unit) }
        switch size {
        case .frames(let length):
            return split(frameCount, length: aligned(length))
        case .seconds(let seconds):
            return split(frameCount, length: aligned((seconds * fps).rounded))
        case .count(let requested):
            let units = (frameCount + unit - 1) / unit
            let count = max(1, min(Int64(requested), units))
            // Spread the remainder over the chunks so lengths differ by at most one unit.
            return (0..<count).map { i in
                Chunk(
                    index: Int(i), start: min(frameCount, units * i / count * unit),
                    end: min(frameCount, units * (i + 1) / count * unit))
            }
        }
    }

    private static func split(_ frameCount: Int64, length: Int64) -> [Chunk] {
        stride(from: Int64(0), to: frameCount, by: Int(length)).enumerated().map { index, start in
            Chunk(index: index, start: start, end: min(start + length, frameCount))
        }
    }
}

extension Project {
    /// The video chunks of `size` over the whole timeline, on the frame multiple the export
    /// needs (`ExportSettings.Video.chunkAlignment`): what a farm job renders.
    public func videoChunks(_ size: ChunkPlanner.Size) -> [Chunk] {
        ChunkPlanner.plan(frameCount: frameCount, fps: output.fps, size: size, alignment: export.chunkAlignment)
    }

    /// The audio blocks of a render of output frames `frames` (the whole timeline by default).
    /// None for numbered image frames, which carry pictures alone.
    public func audioBlocks(ofFrames frames: Range<Int64>? = nil) -> [AudioBlock] {
        guard !export.video.codec.isImage else { return [] }
        return AudioBlocks.plan(
            samples: output.samples(ofFrames: frames ?? 0..<frameCount), sampleRate: output.audio.sampleRate)
    }
}
