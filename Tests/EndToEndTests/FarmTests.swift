import FarmCore
import FarmStore
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The distributed farm end to end: real PostgreSQL, real ZeroMQ sockets between real
/// processes, real media. Serialized: each test runs a coordinator and several workers.
@Suite(.serialized) struct FarmTests {
    /// Cuts, a 2x and a 0.5x item (the 2x clip, c, is shown nowhere else and muted), a PiP with an
    /// opacity ramp and music, rendered losslessly.
    static func seamProject(in dir: URL, width: Int = 160, height: Int = 120, seconds: Int = 4) throws -> URL {
        let size = "\(width)x\(height)"
        try TestMedia.make(
            "a.mp4", in: dir, video: "testsrc2=size=\(size):rate=30:duration=\(seconds + 4)",
            audio: "sine=frequency=330:duration=\(seconds + 4)")
        try TestMedia.make("b.mp4", in: dir, video: "testsrc=size=\(size):rate=25:duration=\(seconds + 4)")
        try TestMedia.make("c.mp4", in: dir, video: "testsrc=size=\(size):rate=25:duration=2")
        try TestMedia.make("music.wav", in: dir, audio: "sine=frequency=550:duration=\(seconds + 4)")
        let end = Double(seconds)
        let json = """
            {
              "output": {"width": \(width), "height": \(height), "fps": "30"},
              "export": {"container": "mov", "video": {"codec": "h264", "lossless": true, "gop": 15,
                "preset": "medium"}, "audio": {"codec": "pcm"}},
              "assets": {"a": {"path": "a.mp4"}, "b": {"path": "b.mp4"}, "c": {"path": "c.mp4"},
                "music": {"path": "music.wav"}},
              "tracks": [
                {"kind": "video", "items": [
                  {"asset": "a", "at": "0", "duration": "1", "source": {"start": "0.5"}},
                  {"asset": "c", "at": "1", "duration": "0.7", "source": {"start": "0", "duration": "1.4"},
                    "muted": true},
                  {"asset": "a", "at": "1.7", "duration": "\(end - 1.7)",
                    "source": {"start": "2", "duration": "\((end - 1.7) / 2)"}}]},
                {"kind": "video", "items": [
                  {"asset": "b", "at": "0.4", "duration": "\(end - 0.4)", "frame": [0.55, 0.55, 0.4, 0.4],
                   "opacity": {"keys": [["0", 0], ["1", 1]]}}]},
                {"kind": "audio", "items": [{"asset": "music", "at": "0.2", "duration": "\(end - 0.5)",
                  "volume": {"keys": [["0", 1], ["2.5", 0]]}}]}
              ]
            }
            """
        let file = dir.appendingPathComponent("project.json")
        try Data(json.utf8).write(to: file)
        return file
    }

    @discardableResult
    static func farm(_ arguments: [String]) throws -> ProcessResult {
        let result = try runFarm(arguments)
        guard result.status == 0 else {
            throw TestError.failed("farm \(arguments.joined(separator: " ")) failed: \(result.stderr)")
        }
        return result
    }

    @Test func chunkingNeverChangesTheOutput() throws {
        try withTemporaryDirectory { dir in
            let project = try Self.seamProject(in: dir)
            let local = dir.appendingPathComponent("local.mov")
            try Self.farm(["render", project.path, "-o", local.path, "--local"])
            let expectedFrames = try frameHashes(local)
            let expectedAudio = try audioHash(local)
            #expect(expectedFrames.count == 120)
            #expect(Set(expectedFrames).count > 60, "the timeline must move, or equal hashes prove nothing")
            let database = try TestDatabase.create()
            let runs: [(String, [String])] = [
                // The all-in-one default: a private PostgreSQL in --data, started and stopped.
                ("seven", ["--chunk-frames", "7", "--data", dir.appendingPathComponent("farm-data").path]),
                // Cached segments (the audio blocks, the same for every chunking) are not used.
                ("one-frame", ["--chunk-frames", "1", "--database", database, "--no-cache"]),
                ("two-seconds", ["--chunk-seconds", "2", "--database", database]),
                ("whole", ["--chunks", "1", "--database", database, "--no-dashboard"]),
            ]
            for (name, arguments) in runs {
                let output = dir.appendingPathComponent("\(name).mov")
                let result = try Self.farm(["render", project.path, "-o", output.path, "--workers", "2"] + arguments)
                #expect(result.stdout.contains("120 frames"), "\(name): \(result.stdout)")
                // The farm's dashboard, with this render's token, unless asked not to.
                let dashboard =
                    result.stderr.hasPrefix("dashboard: http://127.0.0.1:") && result.stderr.contains("/#token=farm_")
                #expect(dashboard == !arguments.contains("--no-dashboard"), "\(name): \(result.stderr)")
                #expect(try frameHashes(output) == expectedFrames, "\(name)")
                #expect(try audioHash(output) == expectedAudio, "\(name)")
                try Self.expectExactStreams(output, frames: 120, name: name)
            }
            let store = try FarmStore(url: database)
            let chunkCounts = try store.connection.query(
                "SELECT j.id, count(*) FROM jobs j JOIN chunks c ON c.job_id = j.id AND c.kind = 'video' "
                    + "GROUP BY j.id ORDER BY j.id"
            )
            #expect(try chunkCounts.map { try $0.decode("count", as: Int64.self) } == [120, 2, 1])
        }
    }

    /// Packets on the exact frame grid, no non-monotonic timestamps, both streams from 0, and
    /// exact frame and sample counts.
    static func expectExactStreams(_ output: URL, frames: Int64, name: String) throws {
        let warnings = try run(
            "ffmpeg", ["-hide_banner", "-nostdin", "-v", "warning", "-i", output.path, "-c", "copy", "-f", "null", "-"])
        #expect(!warnings.stderr.contains("Non-monotonic"), "\(name): \(warnings.stderr)")
        let info = try probe(output, ["-count_frames", "-show_streams"])
        let streams = try #require(info["streams"] as? [[String: Any]])
        let video = try #require(streams.first { $0["codec_type"] as? String == "video" })
        let audio = try #require(streams.first { $0["codec_type"] as? String == "audio" })
        #expect(video["nb_read_frames"] as? String == "\(frames)", "\(name)")
        #expect(video["start_time"] as? String == "0.000000", "\(name)")
        #expect(audio["start_time"] as? String == "0.000000", "\(name)")
        let pts = try videoPacketTimes(output)
        let offGrid = zip(pts, 0..<frames).filter { $0 != Rational($1, 30) }
        #expect(
            pts.count == Int(frames) && offGrid.isEmpty,
            "\(name): \(offGrid.count) packets off the frame grid, first \(offGrid.prefix(3))")
        // Decoded 16-bit stereo: 4 bytes per sample frame; 48000 / 30 samples per video frame.
        let pcm = output.deletingPathExtension().appendingPathExtension("pcm")
        try ffmpeg(["-i", output.path, "-map", "0:a", "-f", "s16le", "-ac", "2", "-ar", "48000", pcm.path])
        let bytes = try FileManager.default.attributesOfItem(atPath: pcm.path)[.size] as? Int
        #expect(bytes == Int(frames) * 1600 * 4, "\(name)")
    }
}
