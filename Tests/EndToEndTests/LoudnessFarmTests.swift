import FarmCore
import Foundation
import TestSupport
import Testing

@testable import FarmStore

/// A programme normalized to EBU R128 on real farms: its loudness blocks measured by whichever
/// worker, combined by the coordinator into one gain, its audio blocks encoded with that gain
/// and the true-peak limiter. ffmpeg's `ebur128` filter is the oracle.
@Suite(.serialized) struct LoudnessFarmTests {
    @Test func tenMinutesToEBUR128AreTheSameBytesOnOneTwoAndEightWorkers() throws {
        try withTemporaryDirectory { dir in
            let project = try TestProjects.loudnessProgramme(in: dir, minutes: 10)
            let database = try TestDatabase.create()
            var outputs: [URL] = []
            for workers in [1, 2, 8] {
                let output = dir.appendingPathComponent("w\(workers).mp4")
                let farm = ["--database", database, "--data", dir.appendingPathComponent("farm-data").path]
                try FarmTests.farm(
                    ["render", project.path, "-o", output.path, "--workers", String(workers), "--chunk-seconds", "60",
                     "--no-cache"] + farm)
                outputs.append(output)
            }
            let local = dir.appendingPathComponent("local.mp4")
            try FarmTests.farm(["render", project.path, "-o", local.path, "--local"])
            let bytes = try outputs.map { try Data(contentsOf: $0) }
            #expect(bytes[1] == bytes[0], "2 workers made other bytes than 1")
            #expect(bytes[2] == bytes[0], "8 workers made other bytes than 1")
            #expect(try audioHash(local) == audioHash(outputs[0]), "farm render --local made other sound than the farm")
            #expect(try frameHashes(local) == frameHashes(outputs[0]))
            let reading = try Ebur128Reading.of(outputs[0])
            #expect(abs(reading.integrated - -23.0) <= 0.1, "\(reading)")
            #expect(reading.truePeak <= -1.0, "\(reading)")
            // Each job measured its 60 blocks before any of its audio blocks went out.
            let store = try FarmStore(url: database)
            let order = try store.connection.query(
                """
                SELECT c.job_id, max(a.finished_at) FILTER (WHERE c.kind = 'loudness') <=
                       min(a.started_at) FILTER (WHERE c.kind = 'audio') AS measured_first,
                       count(DISTINCT c.id) FILTER (WHERE c.kind = 'loudness') AS blocks
                FROM chunks c JOIN attempts a ON a.chunk_id = c.id GROUP BY c.job_id ORDER BY c.job_id
                """)
            #expect(order.count == 3)
            for row in order {
                #expect(try row.decode("measured_first", as: Bool.self))
                #expect(try row.decode("blocks", as: Int64.self) == 60)
                // The limiter acts on this programme: a second pass measured it through the limiter.
                let passes = try store.connection.query(
                    """
                    SELECT max(a.attempt) AS passes FROM attempts a JOIN chunks c ON c.id = a.chunk_id
                    WHERE c.job_id = $1 AND c.kind = 'loudness'
                    """, [String(try row.decode("job_id", as: Int64.self))])
                #expect(try passes[0].decode("passes", as: Int.self) == 2)
            }
        }
    }
}
