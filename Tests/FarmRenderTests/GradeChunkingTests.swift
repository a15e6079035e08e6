import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// Grades never depend on chunking, and a LUT edited in place is a new render.
@Suite struct GradeChunkingTests {
    /// Item grades (CDL then LUT, a LUT with a domain), a track grade over a dissolve, a graded
    /// picture-in-picture turned by a rotation (the resampled path) and an output LUT.
    private let project = """
        {
          "output": {"width": 160, "height": 120, "fps": "30", "grade": {"lut": "look.cube"}},
          "export": {"container": "mkv", "video": {"codec": "ffv1"}, "audio": {"codec": "pcm"}},
          "assets": {"a": {"path": "a.mp4"}, "b": {"path": "b.mp4"}},
          "tracks": [
            {"kind": "video", "grade": {"cdl": {"saturation": 1.4}}, "items": [
              {"asset": "a", "at": "0", "duration": "1", "grade": {"cdl": {"slope": [1.1, 1, 0.9],
                "offset": [0, 0.02, 0.05], "power": [1, 1.2, 0.9], "saturation": 0.8}, "lut": "wide.cube"}},
              {"asset": "b", "at": "1", "duration": "1", "source": {"start": "0.5"}, "grade": {"lut": "look.cube"}}],
             "transitions": [{"between": [0, 1], "type": "dissolve", "duration": "0.5"}]},
            {"kind": "video", "items": [
              {"asset": "b", "at": "0.3", "duration": "1.2", "frame": [0.5, 0.5, 0.4, 0.4], "rotation": 12,
               "opacity": {"keys": [["0", 0.3], ["1", 1]]}, "grade": {"cdl": {"power": [2, 2, 2]}}}]}
          ]
        }
        """

    private func makeMedia(in dir: URL) throws {
        try TestMedia.make("a.mp4", in: dir, video: "testsrc2=size=160x120:rate=30:duration=3")
        try TestMedia.make("b.mp4", in: dir, video: "mandelbrot=size=160x120:rate=25", extra: ["-t", "3"])
        try CubeFile.write("look.cube", in: dir, size: 17)
        try CubeFile.write("wide.cube", in: dir, size: 9, domainMax: [1.5, 1.25, 2])
    }

    @Test func chunkedGradedRendersMatchTheLocalRender() throws {
        try withTemporaryDirectory { dir in
            try makeMedia(in: dir)
            let loaded = try loadProject(project, in: dir)
            #expect(loaded.project.frameCount == 60)
            let expected = try frameHashes(try render(loaded, to: "local.mkv", in: dir))
            #expect(expected.count == 60)
            for (name, size) in [("one-frame", ChunkPlanner.Size.frames(1)), ("seven", .frames(7))] {
                let work = dir.appendingPathComponent(name)
                try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
                let output = dir.appendingPathComponent("\(name).mkv")
                try ChunkedRender(loaded: loaded, workDirectory: work).renderAll(size: size, to: output)
                #expect(try frameHashes(output) == expected, "\(name)")
            }
            print("graded local render, first frame MD5s: \(expected.prefix(3))")
        }
    }

    @Test func editingALUTInPlaceChangesTheChunkKeys() throws {
        try withTemporaryDirectory { dir in
            try makeMedia(in: dir)
            let before = try loadProject(project, in: dir)
            let chunks = before.project.videoChunks(.frames(15))
            let keysBefore = ChunkKeys.keys(of: before.project, work: chunks, container: .mkv, pins: [:])
            let blocks = before.project.audioBlocks()
            let soundBefore = ChunkKeys.keys(of: before.project, work: blocks, container: .mkv, pins: [:])
            #expect(before.project.output.grade?.lut?.digest?.count == 64)
            #expect(before.project.tracks[0].items[1].grade?.lut?.digest == before.project.output.grade?.lut?.digest)
            // The same name, other bytes: every chunk reads look.cube (the output's grade).
            try CubeFile.write("look.cube", in: dir, size: 5)
            let after = try loadProject(project, in: dir)
            let keysAfter = ChunkKeys.keys(of: after.project, work: chunks, container: .mkv, pins: [:])
            #expect(keysBefore.count == 4)
            #expect(zip(keysBefore, keysAfter).allSatisfy { $0 != $1 })
            // Grades change pictures only: the sound's keys stay.
            #expect(!blocks.isEmpty)
            #expect(ChunkKeys.keys(of: after.project, work: blocks, container: .mkv, pins: [:]) == soundBefore)
            // Unchanged bytes, unchanged keys.
            let again = try loadProject(project, in: dir)
            #expect(ChunkKeys.keys(of: again.project, work: chunks, container: .mkv, pins: [:]) == keysAfter)
        }
    }

    /// On the 10-bit HDR canvas grades work on 10-bit samples (BT.2020 RGB, PQ code values):
    /// chunks still change nothing, and the grade changes the picture.
    @Test func tenBitGradesDoNotDependOnChunking() throws {
        try withTemporaryDirectory { dir in
            try makeMedia(in: dir)
            let hdr = project.replacingOccurrences(of: #""fps": "30", "#, with: #""fps": "30", "dynamicRange": "pq", "#)
            #expect(hdr != project)
            let loaded = try loadProject(hdr, in: dir)
            let expected = try frameHashes(try render(loaded, to: "local.mkv", in: dir))
            #expect(expected.count == 60)
            let work = dir.appendingPathComponent("chunks")
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            let output = dir.appendingPathComponent("chunked.mkv")
            try ChunkedRender(loaded: loaded, workDirectory: work).renderAll(size: .frames(7), to: output)
            #expect(try frameHashes(output) == expected)
            var ungraded = loaded
            ungraded.project.output.grade = nil
            #expect(try frameHashes(try render(ungraded, to: "ungraded.mkv", in: dir)) != expected)
        }
    }
}
