import FarmCore
import FarmStore
import Foundation
import TestSupport
import Testing

/// A programme normalized to EBU R128 on real farms: its loudness blocks measured by whichever
/// worker, combined by the coordinator into one gain, its audio blocks encoded with that gain
/// and the true-peak limiter. ffmpeg's `ebur128` filter is the oracle.
@Suite(.serialized) struct LoudnessFarmTests {
    /// Three 30-second periods hold each of the programme's kinds of period (quiet and loud
    /// speech, music under it at full and half level) and 9 loudness blocks, so the limiter acts
    /// and blocks are measured by workers out of order; 20 s chunks give three workers five to
    /// share. (Three minutes of the same, 18 blocks, proved no more in twice the time.)
    @Test func ninetySecondsToEBUR128AreTheSameBytesOnOneAndThreeWorkers() throws {
        try withTemporaryDirectory { dir in
            let project = try TestProjects.loudnessProgramme(in: dir, periods: 3, period: 30)
            let database = try TestDatabase.create()
            var outputs: [URL] = []
            for workers in [1, 3] {
                let output = dir.appendingPathComponent("w\(workers).mp4")
                let farm = ["--database", database, "--data", dir.appendingPathComponent("farm-data").path]
                let rendered = try FarmTests.farm(
                    [
                        "render", project.path, "-o", output.path, "--workers", String(workers), "--chunk-seconds",
                        "20",
                        "--no-cache",
                    ] + farm)
                outputs.append(output)
                // The live view's last line counts the work as the summary does, loudness blocks apart.
                let counted = try #require(
                    rendered.stdout.firstMatch(of: #/(\d+) video chunks and (\d+) audio blocks/#))
                #expect(
                    rendered.stderr.contains("\(counted.1) video chunks, \(counted.2) audio blocks and "),
                    "\(rendered.stdout)\n\(rendered.stderr.suffix(400))")
                #expect(rendered.stderr.contains(" loudness blocks, "), "\(rendered.stderr.suffix(400))")
            }
            let local = dir.appendingPathComponent("local.mp4")
            try FarmTests.farm(["render", project.path, "-o", local.path, "--local"])
            let bytes = try outputs.map { try Data(contentsOf: $0) }
            #expect(bytes[1] == bytes[0], "3 workers made other bytes than 1")
            #expect(try audioHash(local) == audioHash(outputs[0]), "farm render --local made other sound than the farm")
            #expect(try frameHashes(local) == frameHashes(outputs[0]))
            let reading = try Ebur128Reading.of(outputs[0])
            // ebur128 prints one decimal: -23.1 is within the tenth (not 0.1 plus a rounding error).
            #expect(abs(reading.integrated - -23.0) <= 0.1 + 1e-9, "\(reading)")
            #expect(reading.truePeak <= -1.0, "\(reading)")
            // Each job measured its 9 blocks before any of its audio blocks went out.
            let store = try FarmStore(url: database)
            let order = try store.connection.query(
                """
                SELECT c.job_id, max(a.finished_at) FILTER (WHERE c.kind = 'loudness') <=
                       min(a.started_at) FILTER (WHERE c.kind = 'audio') AS measured_first,
                       count(DISTINCT c.id) FILTER (WHERE c.kind = 'loudness') AS blocks
                FROM chunks c JOIN attempts a ON a.chunk_id = c.id GROUP BY c.job_id ORDER BY c.job_id
                """)
            #expect(order.count == 2)
            for row in order {
                #expect(try row.decode("measured_first", as: Bool.self))
                #expect(try row.decode("blocks", as: Int64.self) == 9)
                // The limiter acts on this programme: a second pass measured it through the limiter.
                let rows = try store.connection.query(
                    """
                    SELECT max(a.attempt) AS passes FROM attempts a JOIN chunks c ON c.id = a.chunk_id
                    WHERE c.job_id = $1 AND c.kind = 'loudness'
                    """, [String(try row.decode("job_id", as: Int64.self))])
                let passes = try rows[0].decode("passes", as: Int.self)
                #expect(passes >= 2 && passes <= 1 + LoudnessTarget.limitedPasses, "\(passes) passes")
            }
        }
    }
}

extension LoudnessFarmTests {
    /// A target no gain can reach under its ceiling (−5 LUFS at −1 dBTP with a kick drum):
    /// the job fails naming the figure, its output kept aside; `farm qc` says why and exits 2.
    @Test func aTargetThatMustBeMetFailsTheJobWithTheFigure() throws {
        try withTemporaryDirectory { dir in
            let target = """
                {"standard": "ebu-r128", "integrated": -5, "truePeak": -1, "tolerance": 0.5, "failIfMissed": true}
                """
            let project = try TestProjects.loudnessProgramme(in: dir, periods: 1, period: 30, target: target)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.startCoordinator()
            try farm.start(workers: ["w1"])
            let output = dir.appendingPathComponent("out.mp4")
            let job = try farm.submit(project, output: output, chunkArguments: ["--chunk-seconds", "15"])
            let record = try farm.finish(job)
            #expect(record.state == .failed)
            let error = try #require(record.error)
            #expect(error.contains("the output misses its loudness target: integrated loudness"), "\(error)")
            #expect(error.contains("misses the target -5.0 ± 0.5 LU (ebu-r128)"), "\(error)")
            #expect(!FileManager.default.fileExists(atPath: output.path))
            #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.failed-qc.mp4").path))
            let qc = try farm.cli(["qc", String(job)])
            #expect(qc.status == 2, "\(qc.stderr)")
            #expect(
                qc.stdout.contains("target    ebu-r128: -5.0 LUFS ± 0.5 LU, true peak <= -1.0 dBTP: MISSED"),
                "\(qc.stdout)")
            let json = try farm.cli(["qc", String(job), "--json"])
            #expect(json.status == 2)
            let report = try JSONDecoder().decode(QCReport.self, from: Data(json.stdout.utf8))
            let integrated = try #require(report.audio?.integrated)
            // The oracle reads the file kept aside the same.
            let reading = try Ebur128Reading.of(dir.appendingPathComponent("out.failed-qc.mp4"))
            #expect(abs(integrated - reading.integrated) <= 0.1, "QC \(integrated), ebur128 \(reading)")
            #expect(abs((report.audio?.truePeak ?? 0) - reading.truePeak) <= 0.1, "\(reading)")
            #expect(report.video?.frames == 750)
            #expect(report.seams.broken.isEmpty && report.seams.checked > 0)
            #expect(!report.meetsTarget)
            #expect(report.path == dir.appendingPathComponent("out.failed-qc.mp4").path, "the file where it is")
        }
    }
}
