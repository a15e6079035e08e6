import FarmCore
import Foundation
import TestSupport
import Testing

/// `farm trace` on a real farm: every accepted attempt's phases add up to its time from sent to
/// accepted, every worker has a slot row, and the join and QC are timed. The QC's black runs,
/// measured by the workers on the frames they encoded, read as ffmpeg's `blackdetect` reads
/// the output.
@Suite(.serialized) struct FarmTraceTests {
    struct TraceOutput: Decodable {
        var trace: JobTrace
        var summary: JobTrace.Summary
    }

    @Test func aJobsTraceAddsUpAndItsBlackRunsAreBlackdetects() throws {
        try withTemporaryDirectory { dir in
            // Black 0–3 s, pictures 3–5 s, black 5–8 s, in 1-second chunks on two workers.
            try Self.writeClip(in: dir, black: 3, pictures: 2, blackAgain: 3)
            let project = dir.appendingPathComponent("p.json")
            try """
            {"output": {"width": 160, "height": 90, "fps": "25"},
             "export": {"video": {"codec": "h264", "gop": 25}},
             "assets": {"clip": {"path": "clip.mp4"}},
             "tracks": [{"kind": "video", "items": [{"asset": "clip", "at": "0", "duration": "8"}]}]}
            """.write(to: project, atomically: true, encoding: .utf8)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.startCoordinator()
            try farm.start(workers: ["w1", "w2"])
            let output = dir.appendingPathComponent("out.mp4")
            let job = try farm.submit(project, output: output, chunkArguments: ["--chunk-seconds", "1"])
            #expect(try farm.finish(job).state == .done)

            let traced = try farm.json(TraceOutput.self, ["trace", String(job), "--json"])
            let accepted = traced.trace.attempts.filter { $0.outcome == "done" }
            #expect(accepted.filter { $0.kind == .video }.count == 8, "\(traced.trace.attempts)")
            #expect(traced.summary.attemptsTraced == accepted.count)
            for attempt in accepted {
                let phases = try #require(attempt.phases, "\(attempt)")
                let span = try #require(attempt.accepted) - (try #require(attempt.sent))
                #expect(abs(phases.total - span) < 1e-6, "\(attempt.name): \(phases) vs \(span) s")
                for (name, seconds) in [
                    ("delivering", phases.delivering), ("waiting", phases.waiting), ("rendering", phases.rendering),
                    ("uploading", phases.uploading), ("verifying", phases.verifying), ("accepting", phases.accepting),
                ] {
                    #expect(seconds >= 0, "\(attempt.name) \(name): \(seconds)")
                }
            }
            let workers = Set(traced.summary.slots.map(\.worker))
            #expect(workers.isSubset(of: ["w1", "w2"]) && !workers.isEmpty, "\(traced.summary.slots)")
            let rendersInSlots = traced.summary.slots.reduce(0) { $0 + $1.renders.count }
            #expect(rendersInSlots == accepted.count)
            let summary = traced.summary
            let (joinStarted, joined, checked) = (
                try #require(summary.joinStarted), try #require(summary.joined), try #require(summary.checked)
            )
            #expect(joinStarted <= joined && joined <= checked, "\(summary)")
            #expect(try #require(summary.lastAccepted) <= joinStarted + 1e-3)

            let text = try farm.cli(["trace", String(job), "--width", "40"])
            #expect(text.status == 0, "\(text.stderr)")
            let (count, all) = (traced.summary.attemptsTraced, traced.trace.attempts.count)
            #expect(text.stdout.contains("job \(job) trace: \(count) of \(all) attempts traced"), "\(text.stdout)")
            #expect(text.stdout.contains("worker slots") && text.stdout.contains("join "), "\(text.stdout)")
            let narrow = try farm.cli(["trace", String(job), "--width", "5"])
            #expect(narrow.status == 64 && narrow.stderr.contains("--width must be 20 to 400 (got 5)"))
            let missing = try farm.cli(["trace", "999"])
            #expect(missing.status == 3, "\(missing.stderr)")

            // The workers' black frames against the oracle's reading of the joined file.
            let report = try farm.json(QCReport.self, ["qc", String(job), "--json"])
            let detected = try run(
                "ffmpeg", ["-hide_banner", "-nostdin", "-i", output.path, "-vf", "blackdetect", "-f", "null", "-"]
            ).stderr
            let starts = detected.components(separatedBy: "black_start:").dropFirst().compactMap {
                Double($0.prefix { "0123456789.".contains($0) })
            }
            let blacks = try #require(report.video?.blacks)
            #expect(blacks.map(\.start) == starts, "\(blacks) vs \(detected)")
            #expect(blacks.count == 2 && abs(blacks[0].end - 3) < 0.001 && abs(blacks[1].end - 8) < 0.001)
            // Measured by the workers: the coordinator kept their figures beside the segments.
            let kept = try FileManager.default.contentsOfDirectory(
                atPath: dir.appendingPathComponent("data/jobs/\(job)").path)
            #expect(kept.filter { $0.hasPrefix("black-") }.count == 8, "\(kept)")
        }
    }

    /// The same on a 10-bit PQ canvas (FFV1): the workers' rule scaled to 10 bits reads as
    /// `blackdetect` on the 10-bit file.
    @Test func blackRunsOnATenBitCanvasAreBlackdetects() throws {
        try withTemporaryDirectory { dir in
            try Self.writeClip(in: dir, black: 2, pictures: 1, blackAgain: 3)
            let project = dir.appendingPathComponent("p.json")
            try """
            {"output": {"width": 160, "height": 90, "fps": "25", "dynamicRange": "pq"},
             "export": {"container": "mov", "video": {"codec": "ffv1"}},
             "assets": {"clip": {"path": "clip.mp4"}},
             "tracks": [{"kind": "video", "items": [{"asset": "clip", "at": "0", "duration": "6"}]}]}
            """.write(to: project, atomically: true, encoding: .utf8)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.startCoordinator()
            try farm.start(workers: ["w1"])
            let output = dir.appendingPathComponent("out.mov")
            let job = try farm.submit(project, output: output, chunkArguments: ["--chunk-seconds", "1"])
            #expect(try farm.finish(job).state == .done)
            let report = try farm.json(QCReport.self, ["qc", String(job), "--json"])
            #expect(report.video?.pixelFormat?.contains("10") == true, "\(report)")
            let detected = try run(
                "ffmpeg", ["-hide_banner", "-nostdin", "-i", output.path, "-vf", "blackdetect", "-f", "null", "-"]
            ).stderr
            let starts = detected.components(separatedBy: "black_start:").dropFirst().compactMap {
                Double($0.prefix { "0123456789.".contains($0) })
            }
            let blacks = try #require(report.video?.blacks)
            #expect(blacks.map(\.start) == starts, "\(blacks) vs \(detected)")
            #expect(blacks.count == 2 && abs(blacks[0].end - 2) < 0.001 && abs(blacks[1].end - 6) < 0.001)
        }
    }

    /// `clip.mp4` in `dir`: black for `black` seconds, lavfi's testsrc2 for `pictures`, black
    /// again for `blackAgain`, at 160x90 and 25 fps.
    static func writeClip(in dir: URL, black: Int, pictures: Int, blackAgain: Int) throws {
        try ffmpeg([
            "-f", "lavfi", "-i", "color=black:size=160x90:rate=25:duration=\(black)",
            "-f", "lavfi", "-i", "testsrc2=size=160x90:rate=25:duration=\(pictures)",
            "-f", "lavfi", "-i", "color=black:size=160x90:rate=25:duration=\(blackAgain)",
            "-filter_complex", "[0:v][1:v][2:v]concat=n=3:v=1:a=0[v]", "-map", "[v]", "-c:v", "libx264",
            "-pix_fmt", "yuv420p", dir.appendingPathComponent("clip.mp4").path,
        ])
    }
}
