import FarmCore
import FarmStore
import Foundation
import TestSupport
import Testing

/// Flags the docs offer that no other test passes, each run end to end and shown to do what
/// its help says (`ops/check-documented.py` keeps this list complete).
@Suite(.serialized) struct CommandLineFlagTests {
    /// `--frames A..B` renders exactly those frames of the timeline; `--output` is `-o`;
    /// `--decoder-threads` and `--verbose` change how, not what.
    @Test func framesOutputDecoderThreadsAndVerboseRenderPartOfTheTimeline() throws {
        try withTemporaryDirectory { dir in
            let project = try FarmTests.seamProject(in: dir)
            let whole = try runFarm(["render", project.path, "-o", "whole.mov", "--local"], in: dir)
            #expect(whole.status == 0, "\(whole.stderr)")
            let part = try runFarm(
                [
                    "render", project.path, "--output", "part.mov", "--local", "--frames", "30..45",
                    "--decoder-threads", "2", "--verbose",
                ], in: dir)
            #expect(part.status == 0, "\(part.stderr)")
            let wholeFrames = try frameHashes(dir.appendingPathComponent("whole.mov"))
            #expect(try frameHashes(dir.appendingPathComponent("part.mov")) == Array(wholeFrames[30..<45]))
        }
    }

    @Test func versionAndShortHelp() throws {
        let version = try runFarm(["--version"])
        #expect(version.status == 0)
        // The first line; the commit and the FFmpeg libraries follow (CommandLineHelpTests).
        #expect(version.stdout.hasPrefix("\(FarmVersion.current) (commit "), "\(version.stdout)")
        let help = try runFarm(["-h"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: farm"), "\(help.stdout)")
        #expect(help.stdout.contains("render"), "\(help.stdout)")
    }

    /// `farm-worker --slots 2` renders two chunks at once.
    @Test func aWorkerWithTwoSlotsRendersTwoChunksAtOnce() throws {
        try withTemporaryDirectory { dir in
            let project = try FarmTests.seamProject(in: dir, width: 320, height: 240)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.startCoordinator()
            try farm.startWorker("w1", arguments: ["--slots", "2", "--verbose"])
            let output = dir.appendingPathComponent("out.mov")
            let job = try farm.submit(project, output: output, chunkArguments: ["--chunk-frames", "10"])
            #expect(try farm.finish(job).state == .done, "\(farm.logs)")
            #expect(farm.coordinator!.output.contains("2 slots"), "\(farm.coordinator!.output)")
            // With one slot the second chunk is assigned only once the first one's render is
            // over; with two, both are assigned at once, so the second starts before that.
            let first = try farm.store.connection.query(
                """
                SELECT extract(epoch FROM a.started_at)::float8 AS started, a.frames_done, a.fps FROM attempts a
                    JOIN chunks c ON c.id = a.chunk_id
                WHERE c.job_id = $1 ORDER BY a.started_at LIMIT 2
                """, [String(job)])
            #expect(first.count == 2)
            if first.count == 2, let fps = try first[0].decode("fps", as: Double?.self), fps > 0 {
                let (start, next) = (
                    try first[0].decode("started", as: Double.self), try first[1].decode("started", as: Double.self)
                )
                let frames = Double(try first[0].decode("frames_done", as: Int64.self))
                #expect(next < start + frames / fps, "the second chunk waited for the first: \(first)")
            }
        }
    }
}
