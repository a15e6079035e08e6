import FarmStore
import Foundation
import TestSupport
import Testing

/// Numbered frames pinned at submission: a frame rewritten before the workers read it fails
/// the job as changed media, found by the worker's check of the frames' block (each chunk
/// checks the blocks it reads, not the whole sequence).
@Suite struct SequencePinFarmTests {
    /// A frame rewritten inside the run (found by its block's check), or the run's last frame
    /// removed (found by the worker's probe against the pinned run).
    @Test(arguments: ["rewrite p.1030.exr", "remove p.1048.exr"])
    func aFrameChangedAfterSubmissionFailsTheJobAsChangedMedia(_ change: String) throws {
        try withTemporaryDirectory { dir in
            try ImageSequenceFarmTests.makeMedia(in: dir)
            let tracks = #"""
                [{"kind": "video", "items": [{"asset": "p", "at": "0", "duration": "2"}]}]
                """#
            let export = #"{"container": "mkv", "video": {"codec": "ffv1"}}"#
            try ImageSequenceFarmTests.write(
                ImageSequenceFarmTests.project(export: export, tracks: tracks), "plate.json", in: dir)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            // Pinned now, before any worker runs.
            let job = try farm.submit(
                dir.appendingPathComponent("plate.json"), output: dir.appendingPathComponent("out.mkv"),
                chunkArguments: ["--chunk-frames", "12", "--no-cache"])
            let plates = dir.appendingPathComponent("plates")
            if change.hasPrefix("rewrite") {
                let other = try Data(contentsOf: plates.appendingPathComponent("p.1002.exr"))
                try other.write(to: plates.appendingPathComponent("p.1030.exr"))
            } else {
                try FileManager.default.removeItem(at: plates.appendingPathComponent("p.1048.exr"))
            }
            try farm.start(workers: ["w1"])
            let record = try farm.finish(job)
            #expect(record.state == .failed, "\(farm.logs)")
            #expect(
                record.error?.contains("assets.p: media changed since the job was submitted") == true,
                "\(record.error ?? "no error")")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.mkv").path))
        }
    }
}
