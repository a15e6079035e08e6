import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// The QC report's figures against ffmpeg's own filters on the same file: `ebur128` for the
/// loudness and true peak, `blackdetect` and `silencedetect` (their defaults: 2 s, 10 % of the
/// luma range, 98 % of a picture; −60 dB) for the runs.
@Suite struct OutputQCTests {
    @Test func theReportReadsAsFFmpegsFiltersDo() throws {
        try withTemporaryDirectory { dir in
            let file = dir.appendingPathComponent("qc.mov")
            // Black 0–3 s, pictures 3–5 s, black 5–7.5 s; sound 0–1 s, silence 1–4 s, speech-like
            // noise and a loud kick from 4 s.
            try ffmpeg([
                "-f", "lavfi", "-i", "color=black:size=64x36:rate=25:duration=3",
                "-f", "lavfi", "-i", "testsrc2=size=64x36:rate=25:duration=2",
                "-f", "lavfi", "-i", "color=black:size=64x36:rate=25:duration=2.5",
                "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=1",
                "-f", "lavfi", "-i", "anullsrc=r=48000:cl=mono:d=3",
                "-f", "lavfi",
                "-i",
                "aevalsrc='0.4*(random(0)*2-1)*pow(sin(2*PI*2*t),2)+0.9*exp(-30*mod(t,0.5))*sin(2*PI*70*t)'"
                    + ":s=48000:d=3.5",
                "-filter_complex",
                "[0:v][1:v][2:v]concat=n=3:v=1:a=0[v];[3:a][4:a][5:a]concat=n=3:v=0:a=1,"
                    + "aformat=channel_layouts=stereo[a]",
                "-map", "[v]", "-map", "[a]", "-c:v", "libx264", "-g", "25", "-pix_fmt", "yuv420p", "-c:a", "pcm_s16le",
                file.path,
            ])
            let report = try OutputQC.measure(
                file, fps: Rational(25), chunkStarts: [0, 50, 100], blockStarts: [],
                target: .init(
                    integrated: -23, truePeak: -1))
            let video = try #require(report.video)
            let audio = try #require(report.audio)
            #expect(video.frames == 188 && audio.samples == 360_000)
            #expect(report.seams.checked == 2 && report.seams.broken.isEmpty)

            let reading = try Ebur128Reading.of(file)
            #expect(abs((audio.integrated ?? 0) - reading.integrated) <= 0.1, "\(audio) \(reading)")
            #expect(abs((audio.truePeak ?? 0) - reading.truePeak) <= 0.1, "\(audio) \(reading)")
            #expect(abs(audio.loudnessRange - reading.range) <= 0.2, "\(audio) \(reading)")

            let detected = try run(
                "ffmpeg",
                [
                    "-hide_banner", "-nostdin", "-i", file.path, "-vf", "blackdetect", "-af", "silencedetect",
                    "-f", "null", "-",
                ]
            ).stderr
            func figures(_ label: String) -> [Double] {
                detected.components(separatedBy: label).dropFirst().compactMap {
                    Double($0.prefix { "0123456789.".contains($0) })
                }
            }
            let blackStarts = figures("black_start:")
            let blackEnds = figures("black_end:")
            #expect(video.blacks.map(\.start) == blackStarts, "\(video.blacks) vs \(blackStarts)")
            // A run that reaches the end of the file ends, for blackdetect, at its last frame's
            // start (7.48 s); the report counts that frame whole (7.52 s).
            #expect(blackEnds.count == 2 && abs(video.blacks[0].end - blackEnds[0]) < 0.001, "\(blackEnds)")
            #expect(abs(video.blacks.last!.end - (blackEnds.last! + 0.04)) < 0.001, "\(video.blacks) \(blackEnds)")
            #expect(video.blacks.count == 2)
            let silenceStarts = figures("silence_start: ")
            let silenceEnds = figures("silence_end: ")
            #expect(audio.silences.count == 1 && silenceStarts.count == 1, "\(audio.silences) \(detected)")
            #expect(abs((audio.silences.first?.start ?? 0) - (silenceStarts.first ?? -1)) < 0.001)
            #expect(abs((audio.silences.first?.end ?? 0) - (silenceEnds.first ?? -1)) < 0.001)
        }
    }

    /// A silent output has no peaks to report: absent, not −∞ (which JSON cannot hold).
    @Test func aSilentOutputsReportEncodes() throws {
        try withTemporaryDirectory { dir in
            let file = dir.appendingPathComponent("silent.mov")
            try ffmpeg([
                "-f", "lavfi", "-i", "color=gray:size=64x36:rate=25:duration=1", "-f", "lavfi", "-i",
                "anullsrc=r=48000:cl=stereo:d=1", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "pcm_s16le",
                "-shortest", file.path,
            ])
            let report = try OutputQC.measure(file, fps: Rational(25), chunkStarts: [], blockStarts: [], target: nil)
            #expect(report.audio?.truePeak == nil && report.audio?.integrated == nil)
            let data = try JSONEncoder().encode(report)
            #expect(try JSONDecoder().decode(QCReport.self, from: data) == report)
        }
    }
}

/// A sound measure kept by the SHA-256 of the audio packets (`QCSoundCache`) is read back for
/// an output with the same packets, never for another, and never by a cache that only keeps.
@Suite struct QCSoundCacheTests {
    @Test func aMeasureIsReadAgainForTheSamePacketsOnly() throws {
        try withTemporaryDirectory { dir in
            func make(_ name: String, frequency: Int) throws -> URL {
                let file = dir.appendingPathComponent(name)
                try ffmpeg([
                    "-f", "lavfi", "-i", "sine=frequency=\(frequency):sample_rate=48000:duration=3", "-ac", "2",
                    "-c:a", "aac", file.path,
                ])
                return file
            }
            let a = try make("a.mp4", frequency: 440)
            let b = try make("b.mp4", frequency: 550)
            func sound(_ file: URL, _ cache: QCSoundCache?) throws -> QCReport.Audio {
                try #require(
                    try OutputQC.measure(
                        file, fps: Rational(25), chunkStarts: [], blockStarts: [], target: nil,
                        soundCache: cache
                    ).audio)
            }
            let folder = dir.appendingPathComponent("qc")
            let reading = QCSoundCache(folder: folder, reads: true)
            let truth = try sound(a, reading)
            let kept = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            #expect(kept.count == 1, "\(kept)")

            // A figure changed in the kept measure shows that it is read, not decoded again.
            var planted = truth
            planted.integrated = -99
            try JSONEncoder().encode(planted).write(to: kept[0])
            #expect(try sound(a, reading).integrated == -99)
            let other = try sound(b, reading)
            #expect(other == (try sound(b, nil)) && other.integrated != -99, "\(other)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 2)

            // A cache that only keeps measures afresh, and keeps the truth over the planted one.
            #expect(try sound(a, QCSoundCache(folder: folder, reads: false)) == truth)
            #expect(try sound(a, reading) == truth)
        }
    }
}

/// The QC's sound measured in spans on every core (`OutputQC.spanSeconds`) is the one-span
/// measure's, across span seams: silences that cross them stay one run, a peak on one is kept.
@Suite struct OutputQCSpanTests {
    @Test func spansMeasureWhatOneSpanMeasures() throws {
        try withTemporaryDirectory { dir in
            let file = dir.appendingPathComponent("spans.mov")
            // 34 s: noise with a silence over the 10 s seam (8–13 s), one ending on the 20 s seam
            // (18–20 s), a one-sample click just after it and one on the 30 s seam.
            let expression =
                "if(between(t,8,13)+between(t,18,20),0,0.3*(random(0)*2-1))"
                + "+0.95*(eq(n,960001)+eq(n,1440000))"
            try ffmpeg([
                "-f", "lavfi", "-i", "aevalsrc='\(expression)':s=48000:d=34", "-af", "aformat=channel_layouts=stereo",
                "-c:a", "pcm_s16le", file.path,
            ])
            let spans = try #require(try OutputQC.sound(of: file))
            let whole = try #require(try OutputQC.sound(of: file, spanSeconds: 1 << 40))
            #expect(abs((spans.integrated ?? 0) - (whole.integrated ?? 1)) < 1e-9, "\(spans) \(whole)")
            #expect(abs(spans.loudnessRange - whole.loudnessRange) < 1e-9)
            #expect(spans.truePeak == whole.truePeak && spans.samplePeak == whole.samplePeak)
            #expect(spans.silences == whole.silences)
            #expect(spans.silences.map(\.start) == [8, 18], "\(spans.silences)")
            // The clicks set the peak: the noise alone stays under 0.3 of full scale (-10.5 dB).
            #expect((spans.samplePeak ?? -99) > -4, "\(spans)")
            let reading = try Ebur128Reading.of(file)
            #expect(abs((spans.integrated ?? 0) - reading.integrated) <= 0.1, "\(spans) \(reading)")
            #expect(abs((spans.truePeak ?? 0) - reading.truePeak) <= 0.1, "\(spans) \(reading)")
        }
    }
}
