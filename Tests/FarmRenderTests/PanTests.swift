import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// `pan`: an item's sound balanced between the sides, sample for sample as ffmpeg's `aeval`
/// computes the documented balance (the far side times 1 - |pan|), whole and chunked alike; a
/// centred item sounds exactly as one without `pan`.
@Suite struct PanTests {
    static func project(pans: (String, String)) -> String {
        """
        {
          "output": {"width": 64, "height": 36, "fps": "30", "audio": {"sampleRate": 48000, "channels": 2}},
          "export": {"container": "mkv", "video": {"codec": "ffv1"}, "audio": {"codec": "pcm"}},
          "assets": {"tones": {"path": "tones.wav"}},
          "tracks": [{"kind": "audio", "items": [
            {"asset": "tones", "at": "0", "duration": "1"\(pans.0)},
            {"asset": "tones", "at": "1", "duration": "1.5", "source": {"start": "1"}\(pans.1)}
          ]}]
        }
        """
    }

    @Test func panBalancesTheSidesAsFFmpegComputesIt() throws {
        try withTemporaryDirectory { dir in
            let tones = try TestMedia.make(
                "tones.wav", in: dir, audio: "aevalsrc=0.5*sin(2*PI*440*t)|0.5*sin(2*PI*660*t):s=48000:d=3")
            let loaded = try loadProject(
                Self.project(pans: (#", "pan": 0.5"#, #", "pan": {"keys": [["0", -1], ["1.5", 1]]}"#)), in: dir)
            let (whole, chunked) = try renderWholeAndChunked(loaded, in: dir, ext: "mkv", seconds: Rational(1, 3))
            let rendered = try SurroundSources.decoded(whole)
            #expect(rendered == (try SurroundSources.decoded(chunked)), "chunked sound differs from whole")
            // 0.5 for the first second (the left at half), then -1 to 1 over 1.5 s.
            let pan = "if(lt(t,1),0.5,-1+2*(t-1)/1.5)"
            let expected = try SurroundSources.decoded(
                tones, ["-af", "atrim=0:2.5,aeval=exprs='val(0)*min(1,1-\(pan))|val(1)*min(1,1+\(pan))'"])
            #expect(rendered.count == 2 * 120_000 && expected.count == rendered.count)
            let worst = zip(rendered, expected).map { abs(Int($0) - Int($1)) }.max() ?? .max
            #expect(worst <= 2, "largest difference from ffmpeg's balance: \(worst)")
        }
    }

    @Test func aCentredItemSoundsAsOneWithoutPan() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make(
                "tones.wav", in: dir, audio: "aevalsrc=0.5*sin(2*PI*440*t)|0.5*sin(2*PI*660*t):s=48000:d=3")
            let centred = try render(
                try loadProject(
                    Self.project(pans: (#", "pan": 0"#, #", "pan": {"keys": [["0", 0], ["1", 0]]}"#)), in: dir),
                to: "centred.mkv", in: dir)
            let plain = try render(try loadProject(Self.project(pans: ("", "")), in: dir), to: "plain.mkv", in: dir)
            #expect(try SurroundSources.decoded(centred) == (try SurroundSources.decoded(plain)))
        }
    }

    @Test func aPanOutsideMinusOneToOneOrOnAPictureIsRefused() throws {
        let solid = ##"{"solid": "#ff0000", "at": "0", "duration": "1", "pan": 0.5}"##
        let cases = [
            (
                Self.project(pans: (#", "pan": 2"#, "")),
                "p.json: tracks[0].items[0].pan: must be a balance from -1 (left) to 1 (right) (got 2)"
            ),
            (
                Self.project(pans: ("", "")).replacingOccurrences(
                    of: #"{"asset": "tones", "at": "0", "duration": "1"}"#, with: solid),
                #"p.json: tracks[0].items[0].pan: a generated picture has no media; remove "pan""#
            ),
        ]
        for (json, message) in cases {
            do {
                _ = try ProjectParser(mediaRoot: URL(fileURLWithPath: "/")).parse(Array(json.utf8), file: "p.json")
                Issue.record("accepted: \(json)")
            } catch {
                #expect("\(error)".contains(message), "\(error)")
            }
        }
    }
}
