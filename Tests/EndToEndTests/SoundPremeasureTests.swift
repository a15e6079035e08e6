import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// The QC's sound measured while the pictures render: the audio blocks, claimed first, joined
/// alone and measured before the last chunk; the report after the join takes that measure
/// only because the output's audio packets are the same, and it equals a measure of the
/// output itself.
@Suite struct SoundPremeasureTests {
    @Test func theSoundIsMeasuredWhileThePicturesRenderAndEqualsTheOutputsOwnMeasure() throws {
        try withTemporaryDirectory { dir in
            let project = try TestProjects.soundAcrossBlocks(in: dir, audioCodec: "aac")
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.start(workers: ["w1"])
            let output = dir.appendingPathComponent("out.mov")
            let job = try farm.submit(project, output: output, chunkArguments: ["--chunk-seconds", "1", "--no-cache"])
            #expect(try farm.finish(job).state == .done, "\(farm.logs)")

            let log = farm.coordinator?.output ?? ""
            #expect(log.contains("job \(job): its sound measured while the pictures render"), "\(log.suffix(2000))")
            #expect(log.contains("job \(job): the QC took the sound measured before the join"), "\(log.suffix(2000))")
            let report = try farm.json(QCReport.self, ["qc", String(job), "--json"])
            let own = try #require(try OutputQC.sound(of: output))
            #expect(report.audio == own, "the report's sound \(String(describing: report.audio)), the output's \(own)")
            let samples: Int64? = report.audio?.samples
            #expect(samples == 1_200_000, "25 s at 48 kHz")
            // The sound joined alone is gone once measured.
            let folder = farm.dataDirectory.appendingPathComponent("jobs").appendingPathComponent(String(job))
            let left = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            #expect(!left.contains { $0.hasPrefix("sound.") }, "\(left)")
        }
    }
}
