import Foundation
import TestSupport
import Testing

/// Grades through the distributed farm: workers read the LUTs themselves, chunks render what one
/// process renders, and a LUT edited in place is rendered again, not served from the cache.
@Suite(.serialized) struct GradeFarmTests {
    @Test func workersGradeAsOneProcessAndAnEditedLUTRendersAgain() throws {
        try withTemporaryDirectory { dir in
            // With sound: a grade never touches it, so the edited LUT's render reuses its block.
            try TestMedia.make(
                "a.mp4", in: dir, video: "testsrc2=size=160x120:rate=30:duration=2",
                audio: "sine=frequency=330:duration=2")
            try CubeFile.write("look.cube", in: dir, size: 17)
            try Data(
                """
                {"output": {"width": 160, "height": 120, "fps": "30", "grade": {"lut": "look.cube"}},
                 "export": {"container": "mkv", "video": {"codec": "ffv1"}, "audio": {"codec": "pcm"}},
                 "assets": {"a": {"path": "a.mp4"}},
                 "tracks": [{"kind": "video", "grade": {"cdl": {"saturation": 1.3}}, "items": [
                   {"asset": "a", "at": "0", "duration": "1.5", "grade": {"cdl": {"power": [1.2, 1, 0.9]}}}]}]}
                """.utf8
            ).write(to: dir.appendingPathComponent("project.json"))
            let data = dir.appendingPathComponent("farm-data").path
            var said = ""
            func render(_ name: String, farm: Bool) throws -> [String] {
                let output = dir.appendingPathComponent(name)
                let mode =
                    farm ? ["--workers", "2", "--chunk-frames", "7", "--data", data, "--no-dashboard"] : ["--local"]
                let result = try runFarm(["render", "project.json", "-o", output.path] + mode, in: dir)
                #expect(result.status == 0, "\(name): \(result.stderr)")
                said = result.stdout
                return try frameHashes(output)
            }
            let local = try render("local.mkv", farm: false)
            #expect(local.count == 45)
            #expect(try render("farm.mkv", farm: true) == local)
            // Unchanged: every segment comes from the cache.
            #expect(try render("again.mkv", farm: true) == local)
            #expect(said.contains("(8 of them reused from the segment cache)"), "\(said)")
            // The same file name, another look: the farm renders it again (its keys changed).
            try CubeFile.write("look.cube", in: dir, size: 9) { r, g, b in (1 - r, g * g, b) }
            let edited = try render("edited-local.mkv", farm: false)
            #expect(edited != local)
            #expect(try render("edited-farm.mkv", farm: true) == edited)
            // Every video chunk rendered again; the sound's block, which no grade touches, reused.
            #expect(said.contains("rendered 7 video chunks and 1 audio block (1 of them reused"), "\(said)")
        }
    }
}
