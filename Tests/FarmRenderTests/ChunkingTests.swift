import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// Chunking never changes the output: segments rendered separately, audio rendered once, joined
/// by stream copy, decode to the same frames and samples as the single-process render.
@Suite struct ChunkingTests {
    @Test func plannerCoversEveryFrameOnce() {
        let fps = Rational(30)
        for size: ChunkPlanner.Size in [
            .frames(1), .frames(7), .seconds(Rational(2)), .count(1), .count(4), .count(500),
        ] {
            let chunks = ChunkPlanner.plan(frameCount: 100, fps: fps, size: size)
            #expect(chunks.first?.start == 0)
            #expect(chunks.last?.end == 100)
            #expect(zip(chunks, chunks.dropFirst()).allSatisfy { $0.end == $1.start && $0.index + 1 == $1.index })
            #expect(chunks.allSatisfy { $0.frameCount > 0 })
        }
        #expect(ChunkPlanner.plan(frameCount: 100, fps: fps, size: .seconds(Rational(2))).count == 2)
        #expect(ChunkPlanner.plan(frameCount: 100, fps: fps, size: .count(3)).map(\.frameCount) == [33, 33, 34])
    }

    @Test func chunkedRendersMatchTheLocalRender() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make(
                "a.mp4", in: dir, video: "testsrc2=size=160x120:rate=30:duration=4",
                audio: "sine=frequency=330:duration=4")
            try TestMedia.make("b.mp4", in: dir, video: "testsrc=size=160x120:rate=25:duration=4")
            try TestMedia.make("music.wav", in: dir, audio: "sine=frequency=550:duration=4")
            let loaded = try loadProject(
                """
                {
                  "output": {"width": 160, "height": 120, "fps": "30"},
                  "export": {"container": "mkv", "video": {"codec": "h264", "lossless": true, "gop": 15},
                    "audio": {"codec": "pcm"}},
                  "assets": {"a": {"path": "a.mp4"}, "b": {"path": "b.mp4"}, "music": {"path": "music.wav"}},
                  "tracks": [
                    {"kind": "video", "items": [
                      {"asset": "a", "at": "0", "duration": "1", "source": {"start": "0.5"}},
                      {"asset": "b", "at": "1", "duration": "0.7", "source": {"start": "0", "duration": "1.4"}},
                      {"asset": "a", "at": "1.7", "duration": "1", "source": {"start": "2", "duration": "0.5"}}]},
                    {"kind": "video", "items": [
                      {"asset": "b", "at": "0.4", "duration": "2", "frame": [0.55, 0.55, 0.4, 0.4],
                       "opacity": {"keys": [["0", 0], ["1", 1]]}}]},
                    {"kind": "audio", "items": [{"asset": "music", "at": "0.2", "duration": "2.5",
                      "volume": {"keys": [["0", 1], ["2.5", 0]]}}]}
                  ]
                }
                """, in: dir)
            #expect(loaded.project.frameCount == 81)
            let local = try render(loaded, to: "local.mkv", in: dir)
            let expectedFrames = try frameHashes(local)
            let expectedAudio = try audioHash(local)
            #expect(expectedFrames.count == 81)
            for (name, size) in [
                ("one-frame", ChunkPlanner.Size.frames(1)), ("seven", .frames(7)),
                ("two-seconds", .seconds(Rational(2))), ("whole", .count(1)),
            ] {
                let work = dir.appendingPathComponent(name)
                try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
                let output = dir.appendingPathComponent("\(name).mkv")
                try ChunkedRender(loaded: loaded, workDirectory: work).renderAll(size: size, to: output)
                #expect(try frameHashes(output) == expectedFrames, "\(name)")
                #expect(try audioHash(output) == expectedAudio, "\(name)")
                let warnings = try run(
                    "ffmpeg",
                    ["-hide_banner", "-nostdin", "-v", "warning", "-i", output.path, "-c", "copy", "-f", "null", "-"])
                #expect(!warnings.stderr.contains("Non-monotonic"), "\(name): \(warnings.stderr)")
            }
        }
    }
}
