import FarmCore
import FarmMedia
import FarmRender
import Foundation
import TestSupport
import Testing

/// A lossy export encodes to the same bytes whatever else the process runs: alone, or beside
/// another chunk's encoder and compositor. libx264 left to pick its own assembly used AVX-512
/// on this farm's AMD EPYC machines, and there the GOP of frames 60…119 of this very project
/// encoded differently with two render threads than with one, and differently again from run
/// to run (`X264InstructionSet`).
@Suite struct LossyDeterminismTests {
    @Test func threadsChangeNoByteOfAnH264Export() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make(
                "a.mp4", in: dir, video: "testsrc2=size=640x360:rate=30:duration=10",
                codec: ["-c:v", "libx264", "-preset", "veryfast", "-g", "30", "-pix_fmt", "yuv420p"])
            let loaded = try loadProject(
                """
                {"output": {"width": 320, "height": 180, "fps": "30"},
                 "export": {"container": "mp4", "video": {"codec": "h264", "crf": 23, "preset": "veryfast"}},
                 "assets": {"a": {"path": "a.mp4"}},
                 "tracks": [{"kind": "video", "items": [{"asset": "a", "at": "0", "duration": "10", "fit": "cover"}]}]}
                """, in: dir)
            func render(threads: Int, to name: String) throws -> Data {
                let file = dir.appendingPathComponent(name)
                var configuration = LocalRender.Configuration()
                configuration.threads = threads
                try LocalRender(loaded: loaded, configuration: configuration)
                    .render(frames: 0..<loaded.project.frameCount, to: file)
                return try Data(contentsOf: file)
            }
            let alone = try render(threads: 1, to: "alone.mp4")
            #expect(try frameHashes(dir.appendingPathComponent("alone.mp4")).count == 300)
            for round in 0..<3 {
                let beside = try render(threads: 2, to: "beside-\(round).mp4")
                guard beside != alone else { continue }
                // Bytes differ: name the frames (a whole GOP, when an encoder decided otherwise).
                let frames = zip(
                    try frameHashes(dir.appendingPathComponent("alone.mp4")),
                    try frameHashes(dir.appendingPathComponent("beside-\(round).mp4"))
                ).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
                Issue.record("round \(round): two threads encoded other bytes than one; frames \(frames) differ")
            }
        }
    }
}
