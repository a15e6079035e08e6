import FarmCore
import FarmStore
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Long projects on many workers: the sound is parallel work whose result depends on the
/// project alone, long timelines come out exact, and no chunk waits behind a busy worker.
@Suite(.serialized) struct ScalingTests {
    /// AAC, whose seams are the hard ones (each block's encoder starts four frames early): any
    /// chunking in process, with either codec, is AudioBlockTests'; here two real farms.
    @Test func soundIsTheSameLocallyAndOnAnyFarm() throws {
        let codec = "aac"
        try withTemporaryDirectory { dir in
            let project = try TestProjects.soundAcrossBlocks(in: dir, audioCodec: codec)
            let local = dir.appendingPathComponent("local.mov")
            try FarmTests.farm(["render", project.path, "-o", local.path, "--local", "--threads", "1"])
            let frames = try frameHashes(local)
            let sound = try audioHash(local)
            #expect(frames.count == 750)
            let database = try TestDatabase.create()
            for (name, arguments) in [
                ("one worker", ["--workers", "1", "--chunk-seconds", "4"]),
                ("three workers", ["--workers", "3", "--chunk-frames", "30"]),
            ] {
                let output = dir.appendingPathComponent("\(name).mov")
                // A data folder of its own: another suite's farm may use the default one at the same time.
                let farm = ["--database", database, "--data", dir.appendingPathComponent("farm-data").path]
                let result = try FarmTests.farm(["render", project.path, "-o", output.path] + arguments + farm)
                #expect(try audioHash(output) == sound, "\(codec), \(name): \(result.stdout)")
                #expect(try frameHashes(output) == frames, "\(codec), \(name)")
            }
            let store = try FarmStore(url: database)
            let blocks = try store.connection.query(
                "SELECT count(*) FROM chunks WHERE kind = 'audio' GROUP BY job_id ORDER BY job_id")
            #expect(
                try blocks.map { try $0.decode("count", as: Int64.self) } == [3, 3],
                "every farm job splits the sound into the same three blocks")
        }
    }

    /// Five minutes: `farm render` plans 19 chunks of 16 s and 30 audio blocks, the same number
    /// of chunk seams as ten minutes in chunks of 32 s (which this test rendered before, in
    /// twice the time).
    @Test func aFiveMinuteTimelineEndsExactly() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make(
                "a.mp4", in: dir, video: "testsrc2=size=160x90:rate=30:duration=300",
                codec: ["-c:v", "libx264", "-preset", "ultrafast", "-g", "30"])
            try TestMedia.make(
                "b.mp4", in: dir, video: "testsrc=size=160x90:rate=25:duration=300",
                codec: ["-c:v", "libx264", "-preset", "ultrafast", "-g", "25"])
            try TestMedia.make("music.wav", in: dir, audio: "sine=frequency=440:sample_rate=48000:duration=300")
            // Thirty 10 s cuts alternating between the sources, music ramping up and down throughout.
            let cuts = (0..<30).map { index in
                "{\"asset\": \"\(index % 2 == 0 ? "a" : "b")\", \"at\": \"\(index * 10)\", \"duration\": \"10\", "
                    + "\"source\": {\"start\": \"\(index * 7 % 250)\"}}"
            }
            let ramps = (0...30).map { "[\"\($0 * 10)\", \($0 % 2 == 0 ? "0.2" : "0.9")]" }
            let project = dir.appendingPathComponent("long.json")
            try Data(
                """
                {
                  "output": {"width": 160, "height": 90, "fps": "30"},
                  "export": {"container": "mp4", "video": {"codec": "h264", "preset": "ultrafast"},
                    "audio": {"codec": "aac"}},
                  "assets": {"a": {"path": "a.mp4"}, "b": {"path": "b.mp4"}, "music": {"path": "music.wav"}},
                  "tracks": [
                    {"kind": "video", "items": [\(cuts.joined(separator: ",\n"))]},
                    {"kind": "audio", "items": [{"asset": "music", "at": "0", "duration": "300",
                      "volume": {"keys": [\(ramps.joined(separator: ", "))]}}]}
                  ]
                }
                """.utf8
            ).write(to: project)
            let output = dir.appendingPathComponent("long.mp4")
            let result = try FarmTests.farm(
                ["render", project.path, "-o", output.path, "--data", dir.appendingPathComponent("farm").path])
            print("5-minute timeline: \(result.stdout)")
            let info = try probe(output, ["-count_packets", "-show_streams"])
            let streams = try #require(info["streams"] as? [[String: Any]])
            let video = try #require(streams.first { $0["codec_type"] as? String == "video" })
            #expect(video["nb_read_packets"] as? String == "9000")
            // 300 s is 14,062.5 AAC frames: a decoder gives the last one whole, as it does for
            // ffmpeg's own AAC of the same length (FFmpeg 5.1 trims the priming, not the end).
            let reference = try TestMedia.make(
                "reference.mp4", in: dir, audio: "sine=frequency=440:sample_rate=48000:duration=300")
            let samples = try decodedSampleCount(output)
            #expect(samples == (try decodedSampleCount(reference)), "decoded \(samples) samples")
            #expect((300 * 48000 + 1023) / 1024 * 1024 == samples, "decoded \(samples) samples")
            let videoEnd = try #require(Double(video["duration"] as? String ?? ""))
            let audio = try #require(streams.first { $0["codec_type"] as? String == "audio" })
            let audioEnd = try #require(Double(audio["duration"] as? String ?? ""))
            #expect(
                abs(videoEnd - 300) < 0.001 && abs(audioEnd - 300) < 0.001, "video \(videoEnd) s, audio \(audioEnd) s")
        }
    }

    @Test func aBusyWorkerHoldsNoChunkAnotherWorkerCouldRender() throws {
        try withTemporaryDirectory { dir in
            // Four 720p chunks of 90 frames, each long enough (seconds, not tenths) that its
            // progress reaches the database before it ends: the worker is caught mid-chunk
            // however fast the machine. (At 360p a fast machine rendered chunk after chunk between
            // two progress reports, and was never seen in the middle of one.)
            let project = try FarmTests.seamProject(in: dir, width: 1280, height: 720, seconds: 12)
            // A long lease: the stopped worker keeps what it holds, and only the scheduling
            // decides where the other chunks go.
            let farm = try TestFarm(directory: dir, leaseSeconds: 120)
            defer { farm.stopAll() }
            try farm.startCoordinator()
            let busy = try farm.startWorker("busy")
            let output = dir.appendingPathComponent("out.mov")
            let job = try farm.submit(project, output: output, chunkArguments: ["--chunk-frames", "90"])
            let rendering = """
                SELECT c.kind || ' ' || c.idx AS chunk FROM attempts a JOIN chunks c ON c.id = a.chunk_id
                WHERE c.job_id = $1 AND a.worker_id = 'busy' AND a.outcome = 'running'
                """
            // Its audio block, rendered first, may still be uploading or in verification when the
            // video chunk starts (its slot was freed for that): wait until it is accepted, so
            // what the worker holds then is only what it could not hand on.
            try farm.wait("the first worker to be in the middle of a video chunk, its audio accepted") {
                let audioOpen = try farm.store.connection.query(
                    "SELECT 1 FROM chunks WHERE job_id = $1 AND kind = 'audio' AND state <> 'done'", [String(job)])
                return try audioOpen.isEmpty
                    && !farm.store.connection.query(
                        rendering + " AND c.kind = 'video' AND a.frames_done > 0", [String(job)]
                    ).isEmpty
            }
            // From here on it is a deliberately slow task: the worker stops where it is.
            busy.kill(SIGSTOP, wait: false)
            // A chunk it finished just before it stopped may still be in the coordinator's
            // verification, its attempt running until accepted: wait for that, so what is left
            // is what the stopped worker holds (two left would be the fault this test looks for).
            try farm.wait("a chunk the stopped worker finished to be accepted", timeout: 30) {
                try farm.store.connection.query(rendering, [String(job)]).count <= 1
            }
            let held = try farm.store.connection.query(rendering, [String(job)]).map {
                try $0.decode("chunk", as: String.self)
            }
            try farm.startWorker("idle")
            try farm.wait("every chunk but the stopped worker's to be done") {
                let open = try farm.store.connection.query(
                    "SELECT count(*) FROM chunks WHERE job_id = $1 AND state <> 'done'", [String(job)]
                )[0].decode("count", as: Int64.self)
                return open == Int64(held.count)
            }
            let attempts = try farm.attempts(job)
            let made = attempts.map { "\($0.kind) \($0.index) \($0.worker)" }
            print("held by the stopped worker: \(held); attempts: \(made)")
            #expect(held.count == 1, "the busy worker held \(held) while rendering one chunk")
            #expect(attempts.allSatisfy { $0.attempt == 1 })
            let stillHeld = try farm.store.connection.query(rendering, [String(job)]).map {
                try $0.decode("chunk", as: String.self)
            }
            #expect(stillHeld == held)
            kill(busy.process.processIdentifier, SIGCONT)
            let record = try farm.finish(job)
            #expect(record.state == .done, "\(record.error ?? "")\n\(farm.logs)")
        }
    }
}
