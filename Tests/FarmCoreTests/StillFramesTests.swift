import FarmCore
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
    }

    @Test func aStillKeepsTheOutputsShapeAtAnEvenHeight() {
        #expect(StillFrames.height(forWidth: 160, outputWidth: 1920, outputHeight: 1080) == 90)
        #expect(StillFrames.height(forWidth: 100, outputWidth: 1920, outputHeight: 1080) == 56)
        #expect(StillFrames.height(forWidth: 80, outputWidth: 320, outputHeight: 240) == 60)
    }
}
