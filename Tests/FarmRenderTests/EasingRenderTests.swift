import FarmCore
import FarmMedia
import FarmRender
import Foundation
import TestSupport
import Testing

/// Every easing curve on a rendered opacity ramp, probed pixel by pixel against the curve
/// evaluated independently by Newton's method (`cubicBezierReference`).
@Suite struct EasingRenderTests {
    @Test(arguments: [
        ("\"linear\"", "linear"), ("\"hold\"", "hold"), ("\"ease-in\"", "ease-in"), ("\"ease-out\"", "ease-out"),
        ("\"ease-in-out\"", "ease-in-out"), ("{\"bezier\": [0.1, 0.8, 0.2, 1]}", "bezier"),
    ])
    func opacityFollowsTheCurve(curve: String, name: String) throws {
        let expected: (Double) -> Double
        switch name {
        case "linear": expected = { $0 }
        case "hold": expected = { $0 >= 1 ? 1 : 0 }
        case "ease-in": expected = { cubicBezierReference(0.42, 0, 1, 1, at: $0) }
        case "ease-out": expected = { cubicBezierReference(0, 0, 0.58, 1, at: $0) }
        case "ease-in-out": expected = { cubicBezierReference(0.42, 0, 0.58, 1, at: $0) }
        default: expected = { cubicBezierReference(0.1, 0.8, 0.2, 1, at: $0) }
        }
        try withTemporaryDirectory { dir in
            try TestMedia.make(
                "white.mkv", in: dir, video: "color=white:size=64x64:rate=30:duration=2", codec: ["-c:v", "ffv1"])
            let loaded = try loadProject(
                """
                {
                  "output": {"width": 64, "height": 64, "fps": "30", "background": "#000000"},
                  "export": {"container": "mkv", "video": {"codec": "h264", "lossless": true},
                    "audio": {"codec": "pcm"}},
                  "assets": {"white": {"path": "white.mkv"}},
                  "tracks": [{"kind": "video", "items": [{"asset": "white", "at": "0", "duration": "1.5",
                    "fit": "stretch", "opacity": {"keys": [["0", 0, \(curve)], ["1", 1]]}}]}]
                }
                """, in: dir)
            let frames = try decodedYUV(
                try render(loaded, to: "out.mkv", in: dir, audio: false), width: 64, height: 64)
            #expect(frames.count == 45)
            let (white, black) = (235.0, 16.0)
            for n in 0..<45 {
                let opacity = expected(min(1, Double(n) / 30))
                let luma = Double(pixel(frames[n], width: 64, height: 64, x: 32, y: 32).0)
                let wanted = black + (white - black) * (opacity * 255).rounded() / 255
                #expect(abs(luma - wanted) <= 1, "\(name), frame \(n): luma \(luma), expected \(wanted)")
            }
        }
    }
}
