import FarmCore
import FarmMedia
import FarmRender
import Foundation
import TestSupport
import Testing

/// Compositing on a thread of its own, ahead of the encoder: the same pictures in the same
/// order as compositing frame by frame, and a thread that always ends.
@Suite struct CompositedFramesTests {
    private static let project = """
        {
          "output": {"width": 160, "height": 120, "fps": "30", "background": "#202040"},
          "export": {"container": "mkv", "video": {"codec": "h264", "lossless": true}, "audio": {"codec": "pcm"}},
          "assets": {"a": {"path": "a.mp4"}, "b": {"path": "b.mp4"}},
          "tracks": [
            {"kind": "video", "items": [
              {"asset": "a", "at": "0", "duration": "1"},
              {"asset": "b", "at": "1", "duration": "1", "source": {"start": "0.5"}}],
             "transitions": [{"between": [0, 1], "type": "dissolve", "duration": "0.5"}]},
            {"kind": "video", "items": [{"asset": "b", "at": "0.2", "duration": "1.2",
              "frame": [0.5, 0.5, 0.4, 0.4], "opacity": {"keys": [["0", 0], ["1", 1]]}}]}
          ]
        }
        """

    private static func media(in dir: URL) throws {
        try TestMedia.make("a.mp4", in: dir, video: "testsrc2=size=160x120:rate=30:duration=3")
        try TestMedia.make("b.mp4", in: dir, video: "mandelbrot=size=160x120:rate=30", extra: ["-t", "3"])
    }

    private static func hash(_ picture: Picture) -> String {
        let hasher = SHA256()
        let view = picture.view(as: UInt8.self)
        for row in 0..<picture.height {
            hasher.update(Array(UnsafeBufferPointer(start: view.y + row * view.lumaStride, count: picture.width)))
        }
        for row in 0..<picture.height / 2 {
            hasher.update(Array(UnsafeBufferPointer(start: view.u + row * view.chromaStride, count: picture.width / 2)))
            hasher.update(Array(UnsafeBufferPointer(start: view.v + row * view.chromaStride, count: picture.width / 2)))
        }
        return hasher.finish()
    }

    @Test func picturesComeInFrameOrderExactlyAsTheCompositorMakesThem() throws {
        try withTemporaryDirectory { dir in
            try Self.media(in: dir)
            let loaded = try loadProject(Self.project, in: dir)
            let frames: Range<Int64> = 7..<53
            let direct = Compositor(loaded: loaded)
            let expected = try frames.map { Self.hash(try direct.render(frame: $0)) }
            #expect(Set(expected).count > 30, "the timeline must change from frame to frame")

            let composited = CompositedFrames(compositor: Compositor(loaded: loaded), frames: frames, cancellation: nil)
            defer { composited.stop() }
            var got: [String] = []
            while let picture = try composited.next() {
                got.append(Self.hash(picture))
                // Held back a while now and then, so the thread runs ahead and waits for room.
                if got.count % 7 == 0 { Thread.sleep(forTimeInterval: 0.01) }
                composited.recycle(picture)
            }
            #expect(got == expected)
        }
    }

    @Test func stoppingBeforeTheEndEndsTheThread() throws {
        try withTemporaryDirectory { dir in
            try Self.media(in: dir)
            let loaded = try loadProject(Self.project, in: dir)
            let composited = CompositedFrames(compositor: Compositor(loaded: loaded), frames: 0..<60, cancellation: nil)
            let first = try #require(try composited.next())
            _ = first
            // Not recycled: the thread fills its other pictures and waits; stop must still end it.
            composited.stop()
        }
    }

    @Test func aRaisedCancellationEndsTheFramesWithRenderCancelled() throws {
        try withTemporaryDirectory { dir in
            try Self.media(in: dir)
            let loaded = try loadProject(Self.project, in: dir)
            let cancellation = StopFlag()
            let composited = CompositedFrames(
                compositor: Compositor(loaded: loaded), frames: 0..<60, cancellation: cancellation)
            defer { composited.stop() }
            var taken = 0
            #expect(throws: RenderCancelled.self) {
                while let picture = try composited.next() {
                    taken += 1
                    if taken == 3 { cancellation.raise() }
                    composited.recycle(picture)
                }
            }
            #expect(taken < 60)
        }
    }

    @Test func whatCompositingThrowsReachesTheEncodingSide() throws {
        try withTemporaryDirectory { dir in
            try Self.media(in: dir)
            let loaded = try loadProject(Self.project, in: dir)
            // Sources open on first use: b.mp4 gone after the check fails the first frame showing it.
            try FileManager.default.removeItem(at: dir.appendingPathComponent("b.mp4"))
            let composited = CompositedFrames(compositor: Compositor(loaded: loaded), frames: 0..<60, cancellation: nil)
            defer { composited.stop() }
            var taken = 0
            #expect(throws: FFmpegError.self) {
                while let picture = try composited.next() {
                    taken += 1
                    composited.recycle(picture)
                }
            }
            // b first shows at 0.2 s, frame 6 or 7 by how the item's start meets the frame grid.
            #expect((6...7).contains(taken), "frames before the failing one are delivered, then the error")
        }
    }
}
