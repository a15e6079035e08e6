import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// A photo stored sideways with an EXIF Orientation is drawn upright, as players show it.
@Suite struct StillOrientationTests {
    @Test func orientationSixTurnsThePhotoUpright() throws {
        try withTemporaryDirectory { dir in
            // Stored landscape: red on the left, blue on the right. Upright (turned 90° clockwise)
            // the red half is on top.
            try ffmpeg(
                [
                    "-f", "lavfi", "-i", "color=red:size=32x32[a];color=blue:size=32x32[b];[a][b]hstack", "-frames:v",
                    "1", "-q:v", "2", "photo.jpg",
                ], in: dir)
            try insertEXIFOrientation(6, into: dir.appendingPathComponent("photo.jpg"))
            let loaded = try loadProject(
                """
                {
                  "output": {"width": 32, "height": 64, "fps": "30"},
                  "export": {"container": "mkv", "video": {"codec": "h264", "lossless": true},
                    "audio": {"codec": "pcm"}},
                  "assets": {"photo": {"path": "photo.jpg"}},
                  "tracks": [{"kind": "video", "items": [{"asset": "photo", "at": "0", "duration": "0.1",
                    "fit": "stretch"}]}]
                }
                """, in: dir)
            #expect(loaded.media["photo"]?.rotation == 90)
            let frame = try #require(
                try decodedYUV(try render(loaded, to: "out.mkv", in: dir, audio: false), width: 32, height: 64).first)
            // Red has high V, blue high U (BT.709, limited range).
            let topRight = pixel(frame, width: 32, height: 64, x: 24, y: 8)
            let bottomLeft = pixel(frame, width: 32, height: 64, x: 8, y: 56)
            #expect(topRight.2 > 200 && topRight.1 < 128, "top right should be red, is \(topRight)")
            #expect(bottomLeft.1 > 200 && bottomLeft.2 < 128, "bottom left should be blue, is \(bottomLeft)")
        }
    }

    /// A photo turned by its EXIF orientation is the picture ffmpeg makes by turning the decoded
    /// photo (transpose and flips, in its own format) and then scaling it by the very graph that
    /// places an upright photo: one `scale` into BT.709 4:2:0, so the turn adds no conversion.
    /// Orientations 1, 3, 6 and 8 are also ffmpeg's own autorotate (which in FFmpeg 5.1 ignores
    /// the mirror of 2, 4, 5 and 7: those are checked against the turn EXIF defines). 4:2:0 and
    /// 4:4:4 JPEGs, at a size that scales them.
    @Test(arguments: ["yuvj420p", "yuvj444p"])
    func everyOrientationIsTheTurnedPhotoPlacedLikeAnUprightOne(pixelFormat: String) throws {
        try withTemporaryDirectory { dir in
            try ffmpeg(
                [
                    "-f", "lavfi", "-i", "testsrc2=size=96x64", "-frames:v", "1", "-pix_fmt", pixelFormat, "-q:v", "3",
                    "photo.jpg",
                ], in: dir)
            let turns = [
                1: "null", 2: "hflip", 3: "hflip,vflip", 4: "vflip", 5: "transpose=cclock_flip", 6: "transpose=clock",
                7: "transpose=clock_flip", 8: "transpose=cclock",
            ]
            for (orientation, turn) in turns.sorted(by: { $0.key < $1.key }) {
                let name = "photo-\(orientation).jpg"
                try FileManager.default.copyItem(
                    at: dir.appendingPathComponent("photo.jpg"), to: dir.appendingPathComponent(name))
                try insertEXIFOrientation(UInt8(orientation), into: dir.appendingPathComponent(name))
                let (width, height) = orientation >= 5 ? (100, 150) : (150, 100)
                let loaded = try loadProject(
                    """
                    {
                      "output": {"width": \(width), "height": \(height), "fps": "30"},
                      "export": {"container": "mkv", "video": {"codec": "ffv1"}, "audio": {"codec": "pcm"}},
                      "assets": {"photo": {"path": "\(name)"}},
                      "tracks": [{"kind": "video", "items": [{"asset": "photo", "at": "0", "duration": "1/30",
                        "fit": "stretch"}]}]
                    }
                    """, in: dir)
                let rendered = try decodedYUV(
                    try render(loaded, to: "out-\(orientation).mkv", in: dir, audio: false), width: width,
                    height: height)
                #expect(rendered.count == 1)
                let scale =
                    "scale=\(width):\(height):flags=bicubic+accurate_rnd+bitexact:out_color_matrix=bt709:out_range=tv"
                var oracles = [("turned", ["-noautorotate"], "\(turn),\(scale),format=yuv420p")]
                if [1, 3, 6, 8].contains(orientation) {
                    oracles.append(("autorotated", [], "\(scale),format=yuv420p"))
                }
                for (label, options, graph) in oracles {
                    let oracle = dir.appendingPathComponent("oracle-\(orientation)-\(label).yuv")
                    try ffmpeg(
                        options + [
                            "-i", dir.appendingPathComponent(name).path, "-vf", graph, "-f", "rawvideo", oracle.path,
                        ])
                    let expected = [UInt8](try Data(contentsOf: oracle))
                    #expect(rendered.first == expected, "\(pixelFormat), orientation \(orientation), \(label)")
                }
            }
        }
    }
}
