import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// The example projects with the media examples/README.md tells how to make: each validates,
/// and the showcase (every editing feature at once) renders the same in any split.
@Suite struct ExampleProjectTests {
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("examples")

    /// Runs the README's ffmpeg commands (the lines under "Make the media") in `directory`.
    static func makeMedia(in directory: URL) throws {
        let readme = try String(contentsOf: examples.appendingPathComponent("README.md"), encoding: .utf8)
        let commands = readme.split(separator: "\n").filter { $0.hasPrefix("ffmpeg ") }
        #expect(commands.count == 4)
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("media"), withIntermediateDirectories: true)
        for command in commands {
            let result = try run("/bin/sh", ["-c", String(command)], in: directory)
            #expect(result.status == 0, "\(command): \(result.stderr)")
        }
    }

    @Test func everyExampleValidatesAndTheShowcaseRendersTheSameInAnySplit() throws {
        try withTemporaryDirectory { dir in
            try Self.makeMedia(in: dir)
            let names = try FileManager.default.contentsOfDirectory(atPath: Self.examples.path)
                .filter { $0.hasSuffix(".json") && !$0.hasPrefix("bench-") && $0 != "demo.json" }.sorted()
            #expect(names.contains("showcase.json") && names.contains("delivery.json"))
            // What the projects name beside the made media: the captions, the batch's rows.
            for extra in ["talk.srt", "cities.csv"] {
                try FileManager.default.copyItem(
                    at: Self.examples.appendingPathComponent(extra), to: dir.appendingPathComponent(extra))
            }
            for name in names {
                try FileManager.default.copyItem(
                    at: Self.examples.appendingPathComponent(name), to: dir.appendingPathComponent(name))
                let result = try runFarm(["validate", name], in: dir)
                #expect(result.status == 0 && result.stdout.contains("\(name): ok"), "\(name): \(result.stderr)")
            }
            // The template's batch, one row each checked against the template (validate's --set).
            let rows = try CSVRows.parse(String(contentsOf: dir.appendingPathComponent("cities.csv"), encoding: .utf8))
            #expect(rows.rows.count == 3)
            for row in rows.rows {
                let sets = row.values.sorted { $0.key < $1.key }.flatMap { ["--set", "\($0.key)=\($0.value)"] }
                let result = try runFarm(["validate", "template.json"] + sets, in: dir)
                #expect(result.status == 0, "row \(row.number): \(result.stderr)")
            }
            // Around the wipe at 11 s and the push at 15 s: split mid-transition, rendered apart,
            // losslessly (a lossy encoder's frames depend on where its GOP starts, so the farm
            // splits those only at GOPs).
            var loaded = try ProjectLoader().load(file: dir.appendingPathComponent("showcase.json").path)
            loaded.project.export.video.lossless = true
            loaded.project.export.audio.codec = .pcm
            loaded.project.export.container = .mkv
            for (range, split) in [(320..<340, Int64(330)), (440..<460, Int64(451))] as [(Range<Int64>, Int64)] {
                let whole = try frameHashes(try render(loaded, to: "whole.mkv", in: dir, frames: range, audio: false))
                let head = try frameHashes(
                    try render(loaded, to: "head.mkv", in: dir, frames: range.lowerBound..<split, audio: false))
                let tail = try frameHashes(
                    try render(loaded, to: "tail.mkv", in: dir, frames: split..<range.upperBound, audio: false))
                #expect(whole.count == 20)
                #expect(head + tail == whole, "frames \(range) split at \(split)")
            }
        }
    }
}
