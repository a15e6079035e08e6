import FarmRender
import Foundation
import TestSupport
import Testing

/// A numbered-frames job on a farm writes each chunk's frames as the chunk is accepted, into a
/// hidden folder beside the output; the join only flushes, renames and writes the manifest. A
/// job cancelled midway leaves neither frames nor the folder.
@Suite(.serialized) struct FrameStagingFarmTests {
    static func farmWithJob(in dir: URL, workers: [String]) throws -> (TestFarm, Int64, URL) {
        try ImageSequenceFarmTests.makeMedia(in: dir)
        let project = dir.appendingPathComponent("png.json")
        try ImageSequenceFarmTests.write(
            ImageSequenceFarmTests.project(
                export: #"{"video": {"codec": "png"}}"#, tracks: ImageSequenceFarmTests.programme),
            "png.json", in: dir)
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("frames"), withIntermediateDirectories: true)
        let farm = try TestFarm(directory: dir)
        try farm.start(workers: workers)
        let output = dir.appendingPathComponent("frames/out.%06d.png")
        let job = try farm.submit(project, output: output, chunkArguments: ["--chunk-frames", "7", "--no-cache"])
        return (farm, job, output)
    }

    @Test func everyChunksFramesAreWrittenAsItIsAccepted() throws {
        try withTemporaryDirectory { dir in
            let (farm, job, output) = try Self.farmWithJob(in: dir, workers: ["w1", "w2"])
            defer { farm.stopAll() }
            #expect(try farm.finish(job).state == .done, "\(farm.logs)")
            let log = farm.coordinator?.output ?? ""
            #expect(
                log.contains("job \(job): 43 of 43 chunks' frames written as they were accepted"),
                "\(log.suffix(3000))")
            let names = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("frames").path)
            #expect(names.filter { $0.hasSuffix(".png") }.count == 300)
            #expect(!names.contains { $0.hasPrefix(".") }, "no staging folder is left: \(names)")
            let check = try run("sha256sum", ["-c", "--quiet", "out.sha256"], in: output.deletingLastPathComponent())
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        }
    }

    @Test func aJobCancelledMidwayLeavesNoFramesAndNoStagingFolder() throws {
        try withTemporaryDirectory { dir in
            let (farm, job, output) = try Self.farmWithJob(in: dir, workers: ["w1"])
            defer { farm.stopAll() }
            let staging = FrameFiles.staging(of: output, owner: "job\(job)")
            try farm.wait("a chunk's frames staged", timeout: 120) {
                FrameFiles.stagedChunks(of: output, owner: "job\(job)") > 0
            }
            // Held first, so the job cannot end on its own before the cancel.
            #expect(try farm.cli(["pause", String(job)]).status == 0)
            #expect(try farm.cli(["cancel", String(job)]).status == 0)
            #expect(try farm.finish(job).state == .cancelled)
            try farm.wait("the staging folder to go", timeout: 60) {
                !FileManager.default.fileExists(atPath: staging.path)
            }
            let names = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("frames").path)
            #expect(names.isEmpty, "\(names)")
        }
    }
}
