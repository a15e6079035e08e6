import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// Item transforms against the documented order (scale, then rotate clockwise about the anchor,
/// then move by `position`), evaluated here independently of the renderer.
@Suite struct TransformTests {
    static let canvas = (width: 320, height: 180)

    /// A white 160x108 solid placed at (80, 36), turned and scaled by eased keyframes.
    static let rotatedProject = """
        {
          "output": {"width": 320, "height": 180, "fps": "30", "background": "#000000"},
          "export": {"container": "mkv", "video": {"codec": "h264", "lossless": true}, "audio": {"codec": "pcm"}},
          "assets": {},
          "tracks": [{"kind": "video", "items": [{"solid": "#FFFFFF", "at": "0", "duration": "2",
            "frame": [0.25, 0.2, 0.5, 0.6], "position": [0.05, -0.03],
            "rotation": {"keys": [["0", 15, "ease-in-out"], ["2", 75]]},
            "scale": {"keys": [["0", 0.5], ["2", 0.9]]}}]}]
        }
        """

    /// The layer's four corners at time `t`, from the documented transform.
    static func expectedCorners(at t: Double) -> [(x: Double, y: Double)] {
        let eased = cubicBezierReference(0.42, 0, 0.58, 1, at: t / 2)
        let degrees = 15 + 60 * eased
        let scale = 0.5 + 0.4 * t / 2
        let radians = degrees * .pi / 180
        let (pivotX, pivotY) = (160.0, 90.0)
        let (moveX, moveY) = (0.05 * 320, -0.03 * 180)
        return [(80.0, 36.0), (240, 36), (80, 144), (240, 144)].map { x, y in
            let (dx, dy) = ((x - pivotX) * scale, (y - pivotY) * scale)
            return (
                pivotX + moveX + dx * cos(radians) - dy * sin(radians),
                pivotY + moveY + dx * sin(radians) + dy * cos(radians)
            )
        }
    }

    @Test func turnedCornersLandWhereTheTransformSays() throws {
        try withTemporaryDirectory { dir in
            let loaded = try loadProject(Self.rotatedProject, in: dir)
            let (width, height) = Self.canvas
            let frames = try decodedYUV(
                try render(loaded, to: "out.mkv", in: dir, audio: false), width: width, height: height)
            #expect(frames.count == 60)
            for n in [6, 30, 54] {
                let corners = Self.expectedCorners(at: Double(n) / 30)
                // The extremes of the shape (pixels at least half covered) against the corners
                // that must make them: a turned rectangle's top, bottom, left and right are corners.
                var (top, bottom, left, right) = (Double.infinity, -Double.infinity, Double.infinity, -Double.infinity)
                for y in 0..<height {
                    for x in 0..<width where frames[n][y * width + x] > 125 {
                        top = min(top, Double(y))
                        bottom = max(bottom, Double(y + 1))
                        left = min(left, Double(x))
                        right = max(right, Double(x + 1))
                    }
                }
                let expected = (
                    top: corners.map(\.y).min()!, bottom: corners.map(\.y).max()!,
                    left: corners.map(\.x).min()!, right: corners.map(\.x).max()!
                )
                let errors = [
                    top - expected.top, bottom - expected.bottom, left - expected.left, right - expected.right,
                ]
                #expect(
                    errors.allSatisfy { abs($0) <= 1 },
                    "frame \(n): errors \(errors) extremes \((top, bottom, left, right)), corners give \(expected)")
            }
        }
    }

    @Test func oneFrameChunksMatchTheWholeRender() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make("clip.mp4", in: dir, video: "testsrc2=size=160x120:rate=30:duration=2")
            let loaded = try loadProject(
                """
                {
                  "output": {"width": 192, "height": 108, "fps": "30", "background": "#203040"},
                  "export": {"container": "mkv", "video": {"codec": "h264", "lossless": true},
                    "audio": {"codec": "pcm"}},
                  "assets": {"clip": {"path": "clip.mp4"}},
                  "tracks": [
                    {"kind": "video", "items": [{"gradient": {"colors": ["#102030", "#F0A040", "#3060F0"],
                      "angle": 30}, "at": "0", "duration": "1"}]},
                    {"kind": "video", "items": [{"asset": "clip", "at": "0", "duration": "1",
                      "frame": [0.5, 0.1, 0.4, 0.4], "anchor": [0, 0],
                      "rotation": {"keys": [["0", -30], ["1", 40, "ease-out"]]},
                      "scale": {"keys": [["0", [1.2, 0.7]], ["1", 0.8]]},
                      "opacity": {"keys": [["0", 0.4], ["1", 1]]}}]}
                  ]
                }
                """, in: dir)
            let whole = try frameHashes(try render(loaded, to: "whole.mkv", in: dir, audio: false))
            #expect(whole.count == 30)
            #expect(Set(whole).count == 30, "every frame of the test turns the layer further")
            var chunked: [String] = []
            for n: Int64 in 0..<30 {
                chunked += try frameHashes(
                    try render(loaded, to: "frame-\(n).mkv", in: dir, frames: n..<n + 1, audio: false))
            }
            #expect(chunked == whole)
        }
    }

    /// Without rotation the fast path places the layer on the even-pixel grid: a 0.5 scale about
    /// the top-left anchor and a move of (32, 18) pixels lands a 160x108 frame at (32, 18, 80, 54).
    @Test func uprightTransformsKeepTheLayerOnThePixelGrid() throws {
        try withTemporaryDirectory { dir in
            let loaded = try loadProject(
                """
                {
                  "output": {"width": 320, "height": 180, "fps": "30", "background": "#000000"},
                  "export": {"container": "mkv", "video": {"codec": "h264", "lossless": true},
                    "audio": {"codec": "pcm"}},
                  "assets": {},
                  "tracks": [{"kind": "video", "items": [{"solid": "#FFFFFF", "at": "0", "duration": "0.1",
                    "frame": [0, 0, 0.5, 0.6], "anchor": [0, 0], "scale": 0.5, "position": [0.1, 0.1]}]}]
                }
                """, in: dir)
            let frame = try decodedYUV(
                try render(loaded, to: "out.mkv", in: dir, audio: false), width: 320, height: 180)[0]
            for (x, y, white) in [
                (32, 18, true), (111, 71, true), (31, 30, false), (112, 30, false), (50, 17, false), (50, 72, false),
            ] {
                let luma = pixel(frame, width: 320, height: 180, x: x, y: y).0
                #expect((luma == 235) == white, "pixel (\(x), \(y)) has luma \(luma)")
            }
        }
    }
}
