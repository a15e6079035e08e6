import FarmCore
import Foundation
import TestSupport
import Testing

/// 5.1 output (`output.audio.channels: 6`) rendered by a farm in 4-second chunks (two audio
/// blocks on two workers) equals `farm render --local` and ffmpeg's mix (`SurroundSources`).
/// Every container and codec that holds 5.1 is checked in process by FarmRenderTests'
/// SurroundMixTests, through the same `ChunkedRender` the workers run; here the farm's own path.
@Suite(.serialized) struct SurroundExportTests {
    @Test func aFarmRenders51AsLocallyAndAsFFmpegMixesIt() throws {
        let export = SurroundSources.Export(container: "mp4", audio: "aac")
        try withTemporaryDirectory { dir in
            try SurroundSources.makeSources(in: dir)
            let project = dir.appendingPathComponent("surround.json")
            try Data(SurroundSources.project(export: export.json).utf8).write(to: project)
            let local = dir.appendingPathComponent("local.mp4")
            let chunked = dir.appendingPathComponent("chunked.mp4")
            try FarmTests.farm(["render", project.path, "-o", local.path, "--local"])
            let database = try TestDatabase.create()
            let result = try FarmTests.farm(
                [
                    "render", project.path, "-o", chunked.path, "--workers", "2", "--chunk-seconds", "4",
                    "--database", database, "--data", dir.appendingPathComponent("farm-data").path,
                ])
            #expect(result.stdout.contains("2 audio blocks"), "\(result.stdout)")
            for file in [local, chunked] { try SurroundSources.expectSixChannels(file, export: export) }
            let localSound = try SurroundSources.decoded(local)
            let chunkedSound = try SurroundSources.decoded(chunked)
            let differing = zip(localSound, chunkedSound).filter { $0 != $1 }.count
            #expect(localSound.count == chunkedSound.count && differing == 0, "chunks differ at \(differing)")
            print(try SurroundSources.expectMatchesOracle(localSound, export: export, in: dir) + ", on a farm")
        }
    }

    /// A count other than 1, 2 or 6 is a validation error at its JSON path.
    @Test func otherChannelCountsAreRefusedByValidate() throws {
        try withTemporaryDirectory { dir in
            try SurroundSources.makeSources(in: dir)
            let project = dir.appendingPathComponent("eight.json")
            try Data(
                SurroundSources.project(export: #"{"container": "mov", "audio": {"codec": "pcm"}}"#, channels: 8).utf8
            ).write(to: project)
            let result = try runFarm(["validate", project.path])
            #expect(result.status == 2)
            #expect(
                result.stderr.contains("eight.json: output.audio.channels: must be 1, 2 or 6 (got 8)"),
                "\(result.stderr)")
        }
    }
}
