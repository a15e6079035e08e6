import FarmCore
import TestSupport
import Testing

/// Which output frame a still is: the frame shown at its time.
@Suite struct StillFramesTests {
    @Test func aStillIsTheFrameShownAtItsTimeAndThePastEndIsTheLast() {
        let ntsc = Rational(30000, 1001)
        #expect(StillFrames.frame(at: Rational(0), fps: Rational(25), frames: 100) == 0)
        #expect(StillFrames.frame(at: Rational(2), fps: Rational(25), frames: 100) == 50)
        // 1 s at 29.97 fps falls inside frame 29 (which starts at 0.9676 s).
        #expect(StillFrames.frame(at: Rational(1), fps: ntsc, frames: 100) == 29)
        #expect(StillFrames.frame(at: Rational(1001, 1000), fps: ntsc, frames: 100) == 30)
        #expect(StillFrames.frame(at: Rational(99), fps: Rational(25), frames: 100) == 99)
    }

    @Test func thumbnailsRunFromTheStartWhileTheOutputLasts() {
        #expect(
            StillFrames.thumbnails(every: Rational(7, 10), fps: Rational(30), frames: 120) == [0, 21, 42, 63, 84, 105])
        #expect(StillFrames.thumbnails(every: Rational(2), fps: Rational(25), frames: 100) == [0, 50])
        #expect(StillFrames.thumbnails(every: Rational(1), fps: Rational(25), frames: 0).isEmpty)
        // A chunk's own, found without a walk from the start: frames 15 to 69 hold 21, 42, 63.
        #expect(
            StillFrames.thumbnails(every: Rational(7, 10), fps: Rational(30), frames: 120, in: 15..<70) == [21, 42, 63])
        #expect(StillFrames.thumbnails(every: Rational(7, 10), fps: Rational(30), frames: 120, in: 106..<120).isEmpty)
        #expect(StillFrames.thumbnailCount(every: Rational(1), fps: Rational(25), frames: 100) == 4)
        #expect(StillFrames.thumbnailCount(every: Rational(1, 2), fps: Rational(25), frames: 90_000) == 7200)
    }

    @Test func aStillKeepsTheOutputsShapeAtAnEvenHeight() {
        #expect(StillFrames.height(forWidth: 160, outputWidth: 1920, outputHeight: 1080) == 90)
        #expect(StillFrames.height(forWidth: 100, outputWidth: 1920, outputHeight: 1080) == 56)
        #expect(StillFrames.height(forWidth: 80, outputWidth: 320, outputHeight: 240) == 60)
    }
}

/// A thumbnail sheet its format cannot hold is refused when the project is read, not after
/// the render.
@Suite struct ThumbnailSheetSizeTests {
    static func project(format: String) -> String {
        """
        {"output": {"width": 1920, "height": 1080, "fps": "25"},
         "export": {"thumbnails": {"every": "0.5", "format": "\(format)"}},
         "assets": {},
         "tracks": [{"kind": "video", "items": [{"solid": "#204080", "at": "0", "duration": "3600"}]}]}
        """
    }

    @Test func aSheetPastItsFormatsLargestSideIsRefusedNamingTheFigures() {
        // 7,200 thumbnails of 160x90, 10 a row: 1600x64800 pixels.
        let (webp, problems) = parseProjectText(Self.project(format: "webp"))
        #expect(webp == nil)
        #expect(
            problems.contains(
                "export.thumbnails: 7200 thumbnails make a sheet of 1600x64800 pixels; webp holds at most 16383 a "
                    + "side: set a longer every, more columns or a smaller width"), "\(problems)")
        let (jpeg, accepted) = parseProjectText(Self.project(format: "jpeg"))
        #expect(jpeg != nil, "\(accepted)")
    }
}
