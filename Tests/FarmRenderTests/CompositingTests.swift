import FarmCore
import FarmMedia
import FarmRender
import Foundation
import TestSupport
import Testing

/// Pixel probes on solid-colour sources: picture-in-picture placement, crop and opacity ramps.
@Suite struct CompositingTests {
    typealias YUV = (Int, Int, Int)

    func near(_ a: YUV, _ b: YUV, _ tolerance: Int = 2) -> Bool {
        abs(a.0 - b.0) <= tolerance && abs(a.1 - b.1) <= tolerance && abs(a.2 - b.2) <= tolerance
    }

    /// The YUV that ffmpeg encodes a solid lavfi colour as (the sources' own values).
    func sourceColour(_ file: URL) throws -> YUV {
        let frame = try #require(try decodedYUV(file, width: 64, height: 64).first)
        return pixel(frame, width: 64, height: 64, x: 32, y: 32)
    }

    @Test func pictureInPictureCropAndOpacityRamp() throws {
        try withTemporaryDirectory { dir in
            let codec = ["-c:v", "ffv1"]
            let blue = try TestMedia.make(
                "blue.mkv", in: dir, video: "color=0x2040C0:size=64x64:rate=30:duration=2", codec: codec)
            let red = try TestMedia.make(
                "red.mkv", in: dir, video: "color=0xE02010:size=64x64:rate=30:duration=2", codec: codec)
            try TestMedia.make(
                "halves.mkv", in: dir,
                video:
                    "color=0x10A020:size=32x64:rate=30:duration=2[l];"
                    + "color=0xF0E010:size=32x64:rate=30:duration=2[r];[l][r]hstack",
                codec: codec)
            let yellow = try TestMedia.make(
                "yellow.mkv", in: dir, video: "color=0xF0E010:size=64x64:rate=30:duration=2", codec: codec)
            let loaded = try loadProject(
                """
                {
                  "output": {"width": 320, "height": 240, "fps": "30"},
                  "export": {"container": "mkv", "video": {"codec": "h264", "lossless": true},
                    "audio": {"codec": "pcm"}},
                  "assets": {"blue": {"path": "blue.mkv"}, "red": {"path": "red.mkv"},
                    "halves": {"path": "halves.mkv"}},
                  "tracks": [
                    {"kind": "video", "items": [{"asset": "blue", "at": "0", "duration": "2", "fit": "stretch"}]},
                    {"kind": "video", "items": [{"asset": "red", "at": "0", "duration": "2", "fit": "stretch",
                      "frame": [0.5, 0.5, 0.25, 0.25], "opacity": {"keys": [["0", 0], ["1", 1]]}}]},
                    {"kind": "video", "items": [{"asset": "halves", "at": "0", "duration": "2", "fit": "stretch",
                      "frame": [0, 0, 0.25, 0.5], "crop": [0.5, 0, 0.5, 1]}]}
                  ]
                }
                """, in: dir)
            let frames = try decodedYUV(
                try render(loaded, to: "out.mkv", in: dir, audio: false), width: 320, height: 240)
            #expect(frames.count == 60)
            let (b, r, y) = (try sourceColour(blue), try sourceColour(red), try sourceColour(yellow))
            func probe(_ n: Int, _ x: Int, _ y: Int) -> YUV { pixel(frames[n], width: 320, height: 240, x: x, y: y) }
            func mix(_ top: YUV, _ bottom: YUV, _ alpha: Double) -> YUV {
                func m(_ t: Int, _ u: Int) -> Int { Int((Double(t) * alpha + Double(u) * (1 - alpha)).rounded()) }
                return (m(top.0, bottom.0), m(top.1, bottom.1), m(top.2, bottom.2))
            }
            // Background everywhere outside the layers.
            #expect(near(probe(45, 300, 20), b))
            // The PiP covers x 160..<240, y 120..<180: fully red once the ramp ends.
            #expect(near(probe(45, 200, 150), r))
            #expect(near(probe(45, 156, 150), b), "left of the PiP")
            #expect(near(probe(45, 244, 150), b), "right of the PiP")
            // Halfway (frame 15 = 0.5 s) through the 0 → 1 opacity ramp: an even mix.
            #expect(near(probe(15, 200, 150), mix(r, b, 0.5)))
            // A quarter of the way.
            #expect(near(probe(8, 200, 150), mix(r, b, 8.0 / 30)))
            // At frame 0 the PiP is invisible.
            #expect(near(probe(0, 200, 150), b))
            // The crop keeps only the right (yellow) half of the halves source.
            #expect(near(probe(10, 40, 60), y))
            #expect(near(probe(10, 4, 4), y))
            #expect(near(probe(10, 76, 116), y))
            #expect(near(probe(10, 84, 60), b), "right of the cropped layer")
        }
    }

    @Test func stillWithAlphaBlendsOverVideo() throws {
        try withTemporaryDirectory { dir in
            let blue = try TestMedia.make(
                "blue.mkv", in: dir, video: "color=0x2040C0:size=64x64:rate=30:duration=1", codec: ["-c:v", "ffv1"])
            try ffmpeg(
                ["-f", "lavfi", "-i", "color=0xFFFFFF@0.5:size=32x32,format=rgba", "-frames:v", "1", "half-white.png"],
                in: dir)
            let loaded = try loadProject(
                """
                {
                  "output": {"width": 128, "height": 128, "fps": "30"},
                  "export": {"container": "mkv", "video": {"codec": "h264", "lossless": true},
                    "audio": {"codec": "pcm"}},
                  "assets": {"blue": {"path": "blue.mkv"}, "white": {"path": "half-white.png"}},
                  "tracks": [
                    {"kind": "video", "items": [{"asset": "blue", "at": "0", "duration": "1", "fit": "stretch"}]},
                    {"kind": "video", "items": [{"asset": "white", "at": "0", "duration": "1",
                      "frame": [0, 0, 0.5, 0.5]}]}
                  ]
                }
                """, in: dir)
            let frames = try decodedYUV(
                try render(loaded, to: "out.mkv", in: dir, audio: false), width: 128, height: 128)
            let b = try sourceColour(blue)
            // Limited-range white is Y 235, U = V = 128; alpha 0.5 (128/255).
            let alpha = 128.0 / 255
            func m(_ t: Int, _ u: Int) -> Int { Int((Double(t) * alpha + Double(u) * (1 - alpha)).rounded()) }
            #expect(
                near(pixel(frames[5], width: 128, height: 128, x: 32, y: 32), (m(235, b.0), m(128, b.1), m(128, b.2))))
            #expect(near(pixel(frames[5], width: 128, height: 128, x: 96, y: 96), b))
        }
    }
}
