import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// The sources users bring (`ConformanceRow.all`), each as a one-item project: rendered whole
/// and in 7-frame pieces, the pieces must equal the whole, and the whole must be ffmpeg's own
/// decode under the documented rules: the frame each time shows (`FrameRuleOracle`), the
/// picture through one `scale` to the canvas, the sound through ffmpeg's resampler and its
/// `-ac 2` matrix, sample-exact in time.
@Suite struct MediaConformanceTests {
    /// `FARM_CONFORMANCE_ROW=text` runs only the rows whose file or name contains it.
    static let rows = ConformanceRow.all.filter { row in
        guard let only = ProcessInfo.processInfo.environment["FARM_CONFORMANCE_ROW"] else { return true }
        return row.file.contains(only) || row.name.contains(only)
    }

    @Test(arguments: rows)
    func rendersAsFFmpegDecodesIt(row: ConformanceRow) throws {
        try withTemporaryDirectory { dir in
            for arguments in row.make { try ffmpeg(arguments, in: dir) }
            if let script = row.script {
                let made = try run("/usr/bin/python3", ["-c", script], in: dir)
                #expect(made.status == 0, "\(row.name): \(made.stderr)")
            }
            let source = dir.appendingPathComponent(row.file)
            let hasSound =
                !((try probe(source, ["-select_streams", "a", "-show_entries", "stream=index"])["streams"]
                as? [Any]) ?? []).isEmpty
            let hasPicture = { if case .none = row.picture { return false } else { return true } }()
            let (width, height) = row.canvas
            let timing = row.still ? "" : #", "source": {"start": "\#(row.start)"}"#
            let fit = hasPicture ? #", "fit": "\#(row.fit)""# : ""
            let loaded = try loadProject(
                """
                {
                  "output": {"width": \(width), "height": \(height), "fps": "\(row.fps)",
                    "audio": {"sampleRate": 48000, "channels": 2}},
                  "export": {"container": "mkv", "video": {"codec": "ffv1"}, "audio": {"codec": "pcm"}},
                  "assets": {"a": {"path": "\(row.file)"}},
                  "tracks": [{"kind": "\(hasPicture ? "video" : "audio")", "items": [
                    {"asset": "a", "at": "0", "duration": "\(row.duration)"\(timing)\(fit)}
                  ]}]
                }
                """, in: dir)
            let frames = loaded.project.frameCount
            let whole = try render(loaded, to: "whole.mkv", in: dir, audio: hasSound)
            if hasPicture {
                let rendered = try decodedYUV(whole, width: width, height: height)
                #expect(Int64(rendered.count) == frames, "\(row.name): frame count")
                var pieces: [[UInt8]] = []
                for first in stride(from: Int64(0), to: frames, by: 7) {
                    let piece = try render(
                        loaded, to: "piece-\(first).mkv", in: dir, frames: first..<min(first + 7, frames), audio: false)
                    pieces += try decodedYUV(piece, width: width, height: height)
                }
                let differing = zip(pieces, rendered).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
                #expect(
                    pieces.count == rendered.count && differing.isEmpty,
                    "\(row.name): 7-frame pieces differ from the whole render at frames \(differing)")
                try checkPictures(rendered, of: row, source: source, fps: loaded.project.output.fps)
            }
            if hasSound && row.checksSound {
                let length = Rational(frames) / loaded.project.output.fps
                try checkSound(
                    whole, of: row, source: source, seconds: hasPicture ? length : Rational(parsing: row.duration)!)
            }
        }
    }

    private func checkPictures(_ rendered: [[UInt8]], of row: ConformanceRow, source: URL, fps: Rational) throws {
        let (width, height) = row.canvas
        let scale = "scale=\(width):\(height):flags=bicubic+accurate_rnd+bitexact\(row.scaleOptions)"
        let oracle = try FrameRuleOracle(file: source, graph: row.oracleGraph ?? scale, width: width, height: height)
        let start = row.still ? Rational.zero : Rational(parsing: row.start)!
        for (index, picture) in rendered.enumerated() {
            let shown = row.still ? 0 : oracle.index(at: start + Rational(Int64(index)) / fps)
            let expected = oracle.pictures[shown]
            switch row.picture {
            case .exact:
                let same = picture == expected
                #expect(same, "\(row.name): frame \(index) is not ffmpeg's picture \(shown)")
            case .close(let threshold):
                let match = psnr(picture, expected)
                #expect(match >= threshold, "\(row.name): frame \(index) at \(match) dB of ffmpeg's picture \(shown)")
                for neighbour in [shown - 1, shown + 1] where oracle.pictures.indices.contains(neighbour) {
                    let other = oracle.pictures[neighbour]
                    if other != expected {
                        let nearer = psnr(picture, other) < match
                        #expect(
                            nearer, "\(row.name): frame \(index) is nearer ffmpeg's picture \(neighbour) than \(shown)")
                    }
                }
            case .none:
                break
            }
        }
    }

    /// The render's sound is ffmpeg's decode of the same span, resampled and down-mixed by
    /// ffmpeg, with silence where the source has none yet: within 2 of 32,767 (the farm mixes
    /// in floats and converts once; ffmpeg rounds between its resample and its matrix).
    /// `seconds` is the render's length: a video item lasts whole frames.
    private func checkSound(_ whole: URL, of row: ConformanceRow, source: URL, seconds: Rational) throws {
        let samples = (seconds * Rational(48000)).rounded
        let expected = try stereoSamples(
            source,
            filter: "aresample=48000:async=1:first_pts=0,atrim=start=\(row.start):duration=\(row.duration),apad,"
                + "atrim=end_sample=\(samples)")
        let actual = try stereoSamples(whole, filter: "anull")
        #expect(actual.count == expected.count, "\(row.name): \(actual.count) samples, ffmpeg \(expected.count)")
        // The shift (in sample frames) at which the two agree best, and how well.
        let margin = 2 * row.soundOffset + 2
        let (shift, worst) = (-row.soundOffset...row.soundOffset).map { shift in
            let worst =
                stride(from: margin, to: min(actual.count, expected.count) - margin, by: 1).map {
                    abs(Int(actual[$0]) - Int(expected[$0 + 2 * shift]))
                }.max() ?? 0
            return (shift, worst)
        }.min { $0.1 < $1.1 }!
        #expect(
            worst <= row.soundLevel,
            "\(row.name): sound differs from ffmpeg's by up to \(worst), best \(shift) samples from it")
        #expect(actual.contains { $0 != 0 }, "\(row.name): the render is silent")
    }
}
