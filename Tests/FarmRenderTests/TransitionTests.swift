import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// Transitions against the ffmpeg program's `xfade` where it computes the same thing, and
/// against pixel and sample values derived here from the documented formulas.
@Suite struct TransitionTests {
    /// Two generated pictures joined at 1 s by a 1 s transition (0.5 s to 1.5 s), 160x90, lossless.
    static func solidsProject(_ transition: String, outgoing: String, incoming: String) -> String {
        """
        {
          "output": {"width": 160, "height": 90, "fps": "30", "background": "#000000"},
          "export": {"container": "mkv", "video": {"codec": "h264", "lossless": true}, "audio": {"codec": "pcm"}},
          "assets": {},
          "tracks": [{"kind": "video", "items": [
              {\(outgoing), "at": "0", "duration": "1"}, {\(incoming), "at": "1", "duration": "1"}],
            "transitions": [{"between": [0, 1], "duration": "1", \(transition)}]}]
        }
        """
    }

    static func lumaRow(_ frame: [UInt8], y: Int = 45) -> [Int] { (0..<160).map { Int(frame[y * 160 + $0]) } }

    @Test func dissolveMatchesXfade() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make(
                "a.mkv", in: dir, video: "testsrc2=size=160x120:rate=30:duration=3", codec: ["-c:v", "ffv1"])
            try TestMedia.make(
                "b.mkv", in: dir, video: "mandelbrot=size=160x120:rate=30", codec: ["-c:v", "ffv1"], extra: ["-t", "3"])
            let loaded = try loadProject(
                """
                {
                  "output": {"width": 160, "height": 120, "fps": "30"},
                  "export": {"container": "mkv", "video": {"codec": "h264", "lossless": true},
                    "audio": {"codec": "pcm"}},
                  "assets": {"a": {"path": "a.mkv"}, "b": {"path": "b.mkv"}},
                  "tracks": [{"kind": "video", "items": [
                      {"asset": "a", "at": "0", "duration": "2"},
                      {"asset": "b", "at": "2", "duration": "2", "source": {"start": "1"}}],
                    "transitions": [{"between": [0, 1], "type": "dissolve", "duration": "1"}]}]
                }
                """, in: dir)
            let ours = try render(loaded, to: "ours.mkv", in: dir, audio: false)
            try ffmpeg(
                [
                    "-i", "a.mkv", "-i", "b.mkv", "-filter_complex",
                    "[0:v]trim=0:2.5,setpts=PTS-STARTPTS[a];[1:v]trim=start=0.5,setpts=PTS-STARTPTS[b];"
                        + "[a][b]xfade=transition=fade:duration=1:offset=1.5,format=yuv420p",
                    "-c:v", "ffv1", "reference.mkv",
                ], in: dir)
            #expect(try frameHashes(ours).count == 120)
            // Luma only: this ffmpeg's xfade works in 4:4:4, so its chroma went through a
            // resampling round trip that ours did not.
            let psnr = try lowestLumaPSNR(ours, dir.appendingPathComponent("reference.mkv"))
            #expect(psnr >= 45, "lowest luma PSNR against xfade: \(psnr) dB")
        }
    }

    @Test(arguments: [("right", 0.0), ("left", 0.0), ("right", 0.2), ("down", 0.3)])
    func wipeSweepsTheEdge(direction: String, softness: Double) throws {
        try withTemporaryDirectory { dir in
            let loaded = try loadProject(
                Self.solidsProject(
                    "\"type\": \"wipe\", \"direction\": \"\(direction)\", \"softness\": \(softness)",
                    outgoing: "\"solid\": \"#FFFFFF\"", incoming: "\"solid\": \"#000000\""), in: dir)
            let frames = try decodedYUV(
                try render(loaded, to: "out.mkv", in: dir, audio: false), width: 160, height: 90)
            let vertical = direction == "down"
            for n in 15..<45 {
                let progress = (Double(n) / 30 - 0.5) / 1
                for index in stride(from: 1, to: vertical ? 90 : 160, by: 7) {
                    let along = (Double(index) + 0.5) / Double(vertical ? 90 : 160)
                    let s = direction == "left" ? 1 - along : along
                    let edge = progress * (1 + softness)
                    let share = softness > 0 ? min(1, max(0, (edge - s) / softness)) : (s < edge ? 1.0 : 0)
                    let weight = (share * 255).rounded()
                    let expected = 235 + (16 - 235) * weight / 255
                    let (x, y) = vertical ? (80, index) : (index, 45)
                    let luma = Double(pixel(frames[n], width: 160, height: 90, x: x, y: y).0)
                    // One step of weight (0.86 in luma) either way where the edge's ramp rounds.
                    #expect(abs(luma - expected) <= 1.5, "frame \(n) at (\(x), \(y)): \(luma), expected \(expected)")
                }
            }
        }
    }

    /// Push moves both pictures by the even-rounded distance; slide moves only the incoming one.
    @Test(arguments: ["push", "slide"])
    func pictureMovesAcross(kind: String) throws {
        try withTemporaryDirectory { dir in
            let loaded = try loadProject(
                Self.solidsProject(
                    "\"type\": \"\(kind)\", \"direction\": \"left\"",
                    outgoing: "\"gradient\": {\"colors\": [\"#000000\", \"#FFFFFF\"]}",
                    incoming: "\"gradient\": {\"colors\": [\"#FF0000\", \"#0000FF\"]}"), in: dir)
            let frames = try decodedYUV(
                try render(loaded, to: "out.mkv", in: dir, audio: false), width: 160, height: 90)
            let (outgoing, incoming) = (Self.lumaRow(frames[0]), Self.lumaRow(frames[59]))
            #expect(outgoing != incoming)
            for n in 16..<45 {
                let progress = (Double(n) / 30 - 0.5) / 1
                let travelled = Int((progress * 160 / 2).rounded()) * 2
                let row = Self.lumaRow(frames[n])
                let boundary = 160 - travelled
                let expectedOutgoing = kind == "push" ? Array(outgoing[travelled...]) : Array(outgoing[..<boundary])
                #expect(Array(row[..<boundary]) == expectedOutgoing, "frame \(n): the outgoing picture")
                #expect(Array(row[boundary...]) == Array(incoming[..<travelled]), "frame \(n): the incoming picture")
            }
        }
    }

    @Test func dipPassesThroughTheColour() throws {
        try withTemporaryDirectory { dir in
            let loaded = try loadProject(
                Self.solidsProject(
                    "\"type\": \"dip\", \"color\": \"#FFFFFF\"", outgoing: "\"solid\": \"#000000\"",
                    incoming: "\"solid\": \"#808080\""), in: dir)
            let frames = try decodedYUV(
                try render(loaded, to: "out.mkv", in: dir, audio: false), width: 160, height: 90)
            let (black, grey, white) = (16.0, Double(16 + Int((219.0 * 128 / 255).rounded())), 235.0)
            for n in 15..<45 {
                let progress = (Double(n) / 30 - 0.5) / 1
                let expected: Double
                if progress < 0.5 {
                    expected = black + (white - black) * (2 * progress * 255).rounded() / 255
                } else {
                    expected = grey + (white - grey) * ((2 - 2 * progress) * 255).rounded() / 255
                }
                let luma = Double(pixel(frames[n], width: 160, height: 90, x: 80, y: 45).0)
                #expect(abs(luma - expected) <= 1, "frame \(n): \(luma), expected \(expected)")
            }
            #expect(pixel(frames[30], width: 160, height: 90, x: 80, y: 45).0 == 235, "white in the middle")
        }
    }

    @Test func oneFrameChunksMatchTheWholeRender() throws {
        try withTemporaryDirectory { dir in
            let loaded = try loadProject(
                Self.solidsProject(
                    "\"type\": \"wipe\", \"direction\": \"up\", \"softness\": 0.4",
                    outgoing: "\"gradient\": {\"kind\": \"radial\", \"colors\": [\"#FFFF00\", \"#000080\"]}",
                    incoming: "\"gradient\": {\"colors\": [\"#102030\", \"#F0E0D0\"], \"angle\": 45}"), in: dir)
            let whole = try frameHashes(try render(loaded, to: "whole.mkv", in: dir, audio: false))
            var chunked: [String] = []
            for n: Int64 in 0..<60 {
                chunked += try frameHashes(try render(loaded, to: "\(n).mkv", in: dir, frames: n..<n + 1, audio: false))
            }
            #expect(whole.count == 60)
            #expect(chunked == whole)
        }
    }

    /// Two constant sounds crossing over: equal power by default, exact sample counts.
    @Test(arguments: ["equal-power", "linear"])
    func soundCrossfades(curve: String) throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make("a.wav", in: dir, audio: "aevalsrc=0.5|0.5:s=48000:d=3")
            try TestMedia.make("b.wav", in: dir, audio: "aevalsrc=0.25|0.25:s=48000:d=3")
            let loaded = try loadProject(
                """
                {
                  "output": {"width": 64, "height": 64, "fps": "30"},
                  "export": {"container": "mkv", "video": {"codec": "h264", "lossless": true},
                    "audio": {"codec": "pcm"}},
                  "assets": {"a": {"path": "a.wav"}, "b": {"path": "b.wav"}},
                  "tracks": [{"kind": "audio", "items": [
                      {"asset": "a", "at": "0", "duration": "2"},
                      {"asset": "b", "at": "2", "duration": "1", "source": {"start": "1"}}],
                    "transitions": [{"between": [0, 1], "type": "dissolve", "duration": "1", "audio": "\(curve)"}]}]
                }
                """, in: dir)
            let file = try render(loaded, to: "out.mkv", in: dir)
            let samples = try firstChannelSamples(file)
            #expect(samples.count == 3 * 48000)
            for n in stride(from: 0, to: 3 * 48000, by: 997) {
                let progress = min(1, max(0, (Double(n) - 1.5 * 48000) / 48000))
                let (fadeOut, fadeIn) =
                    curve == "linear" ? (1 - progress, progress) : (cos(progress * .pi / 2), sin(progress * .pi / 2))
                let expected = 0.5 * fadeOut + 0.25 * fadeIn
                #expect(abs(Double(samples[n]) - expected) < 2e-3, "sample \(n): \(samples[n]), expected \(expected)")
            }
        }
    }

    @Test func mediaMustCoverTheTransition() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make(
                "a.mkv", in: dir, video: "testsrc2=size=64x64:rate=30:duration=2", codec: ["-c:v", "ffv1"])
            let error = #expect(throws: ProjectError.self) {
                try loadProject(
                    """
                    {
                      "output": {"width": 64, "height": 64, "fps": "30"},
                      "assets": {"a": {"path": "a.mkv"}},
                      "tracks": [{"kind": "video", "items": [
                          {"asset": "a", "at": "0", "duration": "2"}, {"asset": "a", "at": "2", "duration": "1"}],
                        "transitions": [{"between": [0, 1], "type": "dissolve", "duration": "1"}]}]
                    }
                    """, in: dir)
            }
            let text = error.map { "\($0)" } ?? ""
            #expect(text.contains("tracks[0].transitions[0]: joins items[0] and items[1]"), "\(text)")
            #expect(text.contains("items[0] needs media up to 5/2 s"), "\(text)")
            #expect(text.contains("items[1] needs 1/2 s of media before its source start 0 s"), "\(text)")
        }
    }
}

/// The lowest luma PSNR of any frame of `file` against `reference`, from ffmpeg's psnr filter.
func lowestLumaPSNR(_ file: URL, _ reference: URL) throws -> Double {
    let result = try ffmpeg(["-i", file.path, "-i", reference.path, "-lavfi", "psnr=stats_file=-", "-f", "null", "-"])
    let values = result.stdout.split(separator: "\n").compactMap { line -> Double? in
        guard let range = line.range(of: "psnr_y:") else { return nil }
        let text = line[range.upperBound...].prefix { !$0.isWhitespace }
        return text == "inf" ? .infinity : Double(text)
    }
    return values.isEmpty ? 0 : values.min()!
}
