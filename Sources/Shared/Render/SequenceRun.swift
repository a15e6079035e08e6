import FarmCore

/// The frames of a numbered-frames asset found on disk: its first number, how many run on
/// from it, and the rate they play at.
struct SequenceRun {
    let pattern: FramePattern
    let numbers: ClosedRange<Int>
    let rate: Rational

    /// Nil when no frame of the pattern (or not its `firstFrame`) is in its folder.
    init?(asset: Asset, timing: Asset.ImageSequence, output: OutputSettings) {
        guard let pattern = FramePattern(path: asset.path), let numbers = pattern.run(from: timing.firstFrame) else {
            return nil
        }
        self.pattern = pattern
        self.numbers = numbers
        rate = timing.frameRate ?? output.fps
    }

    var firstPath: String { pattern.path(numbers.lowerBound) }

    /// The sequence as media, from its first picture's probe: a silent video of its frames.
    func info(firstPicture picture: MediaInfo) -> MediaInfo {
        var info = picture
        info.kind = .video
        info.hasAudio = false
        info.channels = 0
        info.frameRate = rate
        info.duration = Rational(Int64(numbers.count)) / rate
        info.firstFrame = numbers.lowerBound
        // The first frame's EXIF turn is no turn of the sequence: image2 applies none.
        info.rotation = 0
        info.mirrored = false
        return info
    }
}
