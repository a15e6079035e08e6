import FarmCore
import FarmStore
import Foundation
import TestSupport
import Testing

/// Re-rendering only what an edit changed: the segment cache on a real farm.
@Suite struct SegmentCacheTests {
    /// A minute of clip a with its sound and music under it, clip b inset from 20 to 40 s and a
    /// title from 28 to 32 s: 2-second chunks put the title in chunks 14 and 15.
    static func project(in dir: URL, title: String, name: String) throws -> URL {
        if !FileManager.default.fileExists(atPath: dir.appendingPathComponent("a.mp4").path) {
            try TestMedia.make(
                "a.mp4", in: dir, video: "testsrc2=size=160x90:rate=30:duration=61",
                audio: "sine=frequency=330:duration=61")
            try TestMedia.make("b.mp4", in: dir, video: "testsrc=size=160x90:rate=25:duration=21")
            try TestMedia.make("music.wav", in: dir, audio: "sine=frequency=550:duration=61")
        }
        let json = """
            {"output": {"width": 160, "height": 90, "fps": "30"},
             "export": {"container": "mov", "video": {"codec": "h264", "crf": 23, "gop": 30},
                        "audio": {"codec": "aac"}},
             "assets": {"a": {"path": "a.mp4"}, "b": {"path": "b.mp4"}, "music": {"path": "music.wav"}},
             "tracks": [
               {"kind": "video", "items": [{"asset": "a", "at": "0", "duration": "60"}]},
               {"kind": "video", "items": [{"asset": "b", "at": "20", "duration": "20",
                                            "frame": [0.6, 0.6, 0.35, 0.35]}]},
               {"kind": "video", "items": [{"title": {"text": "\(title)", "size": 0.2}, "at": "28", "duration": "4"}]},
               {"kind": "audio", "items": [{"asset": "music", "at": "0", "duration": "60", "volume": 0.5}]}]}
            """
        let file = dir.appendingPathComponent(name)
        try Data(json.utf8).write(to: file)
        return file
    }

    /// The chunks of `job` a worker rendered (not reused), as "video 14" or "audio 0".
    static func rendered(_ farm: TestFarm, job: Int64) throws -> [String] {
        try farm.store.connection.query(
            """
            SELECT c.kind || ' ' || c.idx AS chunk FROM attempts a JOIN chunks c ON c.id = a.chunk_id
            WHERE c.job_id = $1 AND a.outcome = 'done' ORDER BY c.kind DESC, c.idx
            """, [String(job)]
        ).map { try $0.decode("chunk") }
    }

    /// `farm render` choosing its own chunks (8 s for a minute on 2 workers): of the one chunk a
    /// title edit changed, the GOPs it left alone are cut from the cached segment and the two
    /// seconds it changed are split in two, one part a worker; the file is the same frames and
    /// sound as a render of the edit from nothing in 8 chunks; submitted again, nothing renders.
    @Test func farmRenderSpreadsTheChunkAnEditChangedOverItsWorkers() throws {
        try withTemporaryDirectory { dir in
            let first = try Self.project(in: dir, title: "Chapter one", name: "v1.json")
            let edited = try Self.project(in: dir, title: "Chapter 1", name: "v2.json")
            var newestJob = 0
            func render(_ project: URL, _ name: String, _ extra: [String] = []) throws -> (String, [String]) {
                let result = try runFarm(
                    ["render", project.path, "-o", name, "--data", "farm", "--workers", "2", "--no-dashboard"] + extra,
                    in: dir)
                #expect(result.status == 0, "\(result.stderr)")
                let jobs = try runFarm(["status", "--data", "farm", "--json"], in: dir).stdout
                let newest = try #require(
                    (try JSONSerialization.jsonObject(with: Data(jobs.utf8)) as? [[String: Any]])?.first?["id"] as? Int)
                newestJob = newest
                let logs = try runFarm(["logs", String(newest), "--data", "farm", "--json"], in: dir).stdout
                let attempts = try JSONSerialization.jsonObject(with: Data(logs.utf8)) as? [[String: Any]] ?? []
                let rendered = attempts.filter { $0["outcome"] as? String == "done" }.map {
                    "\($0["kind"] as? String ?? "?") \($0["chunk"] as? Int ?? -1)"
                }
                return (result.stdout + result.stderr, rendered.sorted())
            }
            let (full, all) = try render(first, "v1.mov")
            #expect(all.count == 8 + 6, "8 video chunks and 6 audio blocks: \(all)\n\(full)")
            // The title (28-32 s) is in chunk 3 (24-32 s), GOPs of 1 s: 24-28 s is cut from its
            // cached segment (chunk 3), 28-32 s is rendered as 28-30 s and 30-32 s.
            let (edit, rendered) = try render(edited, "v2.mov")
            #expect(rendered == ["video 4", "video 5"], "\(rendered)\n\(edit)")
            let editJob = newestJob
            #expect(edit.contains("rendered 10 video chunks and 6 audio blocks (14 of them reused"), "\(edit)")
            // The parts are in the cache under keys of their own: the same project finds them.
            let (_, again) = try render(edited, "v2-again.mov")
            #expect(again.isEmpty, "\(again)")
            let (_, fresh) = try render(edited, "v2-full.mov", ["--no-cache"])
            #expect(fresh.count == 8 + 6, "\(fresh)")
            // Its QC too: the black frames of the GOPs cut from the cache are theirs (its seams
            // are its own chunks').
            func qc(_ job: Int) throws -> QCReport {
                let text = try runFarm(["qc", String(job), "--data", "farm", "--json"], in: dir).stdout
                return try JSONDecoder().decode(QCReport.self, from: Data(text.utf8))
            }
            let (editQC, freshQC) = (try qc(editJob), try qc(newestJob))
            #expect(editQC.video?.blacks == freshQC.video?.blacks && editQC.audio == freshQC.audio)
            #expect(editQC.video?.frames == 1800)
            let spread = dir.appendingPathComponent("v2.mov")
            let whole = dir.appendingPathComponent("v2-full.mov")
            #expect(try frameHashes(spread) == frameHashes(whole) && frameHashes(spread).count == 1800)
            #expect(try audioHash(spread) == audioHash(whole))
        }
    }

    /// An editor's timeline exported again after a trim: submitted as .otio both times, only
    /// the chunks of the trimmed shot are rendered again.
    @Test func anOpenTimelineIOReExportRendersOnlyTheEditedRange() throws {
        try withTemporaryDirectory { dir in
            _ = try FarmTests.seamProject(in: dir, width: 160, height: 120, seconds: 8)
            func timeline(_ name: String, secondShotStart: Int) throws -> URL {
                let text = OTIODocument.timeline(
                    [
                        OTIODocument.track(
                            "Video", "V1",
                            [
                                OTIODocument.clip("one", "a.mp4", source: (0, 96)),
                                OTIODocument.clip("two", "b.mp4", source: (secondShotStart, 96)),
                            ])
                    ], rate: "24")
                let file = dir.appendingPathComponent(name)
                try Data(text.utf8).write(to: file)
                return file
            }
            let first = try timeline("cut-v1.otio", secondShotStart: 0)
            let trimmed = try timeline("cut-v2.otio", secondShotStart: 24)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.start(workers: ["w1"])
            let chunking = ["--chunk-seconds", "1", "--canvas", "160x120@24"]
            let v1 = try farm.submit(first, output: dir.appendingPathComponent("v1.mov"), chunkArguments: chunking)
            #expect(try farm.finish(v1).state == .done, "\(farm.logs)")
            let all = try Self.rendered(farm, job: v1)
            // 2-second chunks: one second rounds up to the export's 48-frame GOP.
            #expect(all == ["video 0", "video 1", "video 2", "video 3", "audio 0"], "\(all)")
            let v2 = try farm.submit(trimmed, output: dir.appendingPathComponent("v2.mov"), chunkArguments: chunking)
            #expect(try farm.finish(v2).state == .done, "\(farm.logs)")
            // The second shot is seconds 4 to 8: chunks 2 and 3. An OTIO video track carries no
            // sound (the import mutes its clips), so the audio block is reused.
            let again = try Self.rendered(farm, job: v2)
            #expect(again == ["video 2", "video 3"], "\(again)")
        }
    }

    @Test func anEditRendersOnlyItsChunksAndTheFileIsAFullRendersAndADamagedEntryIsRenderedAgain() throws {
        try withTemporaryDirectory { dir in
            let first = try Self.project(in: dir, title: "Chapter one", name: "v1.json")
            let edited = try Self.project(in: dir, title: "Chapter 1", name: "v2.json")
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.start(workers: ["w1"])
            let chunking = ["--chunk-seconds", "2"]
            func render(_ project: URL, _ name: String, _ extra: [String] = []) throws -> (Int64, URL) {
                let output = dir.appendingPathComponent(name)
                let job = try farm.submit(project, output: output, chunkArguments: chunking + extra)
                #expect(try farm.finish(job).state == .done, "\(farm.logs)")
                return (job, output)
            }
            let (full, _) = try render(first, "v1.mov")
            #expect(try Self.rendered(farm, job: full).count == 30 + 6, "every chunk and audio block")

            // What the edit changes, before rendering it.
            let diff = try runFarm(["diff", first.path, edited.path] + chunking)
            #expect(diff.status == 1, "\(diff.stderr)")
            #expect(
                diff.stdout.contains(#"chunk 14 [840, 900): track 2 item 0 (title "Chapter 1") changed"#),
                "\(diff.stdout)")
            #expect(
                diff.stdout.contains("2 of 36 chunks (video chunks and audio blocks) would be rendered again"),
                "\(diff.stdout)")
            #expect(try runFarm(["diff", first.path, first.path] + chunking).status == 0)

            let (again, reusedOutput) = try render(edited, "v2.mov")
            #expect(try Self.rendered(farm, job: again) == ["video 14", "video 15"])
            let reused = try farm.store.connection.query(
                """
                SELECT count(*) FROM attempts a JOIN chunks c ON c.id = a.chunk_id
                WHERE c.job_id = $1 AND a.outcome = 'reused' AND a.worker_id = 'cache'
                """, [String(again)])[0].decode("count", as: Int64.self)
            #expect(reused == 34)
            #expect(try farm.cli(["logs", String(again)]).stdout.contains("reused"))
            let status = try farm.cli(["status", String(again)]).stdout
            #expect(status.contains("36 done (34 from the segment cache)"), "\(status)")
            #expect(!status.contains("CHUNK"), "a done job lists no chunks, and no table header: \(status)")
            let watched = try farm.cli(["watch", String(again)]).stdout
            #expect(
                watched.contains("1800 frames (120 rendered in this run) in "), "the run's rate is its own: \(watched)")
            #expect(watched.contains("30 video chunks and 6 audio blocks (34 from the segment cache)"), "\(watched)")

            // The same as rendering the edited project from nothing.
            let (freshJob, fresh) = try render(edited, "v2-full.mov", ["--no-cache"])
            #expect(try frameHashes(reusedOutput) == frameHashes(fresh))
            #expect(try audioHash(reusedOutput) == audioHash(fresh))
            #expect(try frameHashes(reusedOutput).count == 1800)

            // Its QC report too: the reused chunks' black frames came from the cache beside them,
            // its sound's measure from the first job's (the same audio blocks joined), where the
            // render from nothing measured everything again.
            let cache = farm.dataDirectory.appendingPathComponent("cache")
            let keys = try farm.store.connection.query(
                "SELECT content_key FROM chunks WHERE job_id = $1 AND kind = 'video'", [String(again)]
            ).map { try $0.decode("content_key", as: String.self) }
            let blackFiles = keys.filter {
                FileManager.default.fileExists(atPath: cache.appendingPathComponent($0 + ".black.json").path)
            }
            #expect(blackFiles.count == 30, "\(blackFiles.count) of 30 chunks keep their black frames")
            let measures = try FileManager.default.contentsOfDirectory(
                atPath: cache.appendingPathComponent("qc").path)
            #expect(measures.count == 1 && measures[0].hasPrefix("sound-"), "\(measures)")
            let reusedQC = try farm.json(QCReport.self, ["qc", String(again), "--json"])
            let freshQC = try farm.json(QCReport.self, ["qc", String(freshJob), "--json"])
            #expect(reusedQC.video?.blacks == freshQC.video?.blacks && reusedQC.audio == freshQC.audio)
            #expect(reusedQC.seams == freshQC.seams && reusedQC.video?.frames == 1800)

            // A cached segment with bytes flipped: found by its checksum, rendered again, never joined.
            let key = try farm.store.connection.query(
                "SELECT content_key FROM chunks WHERE job_id = $1 AND kind = 'video' AND idx = 3", [String(again)])[0]
                .decode("content_key", as: String.self)
            let cached = farm.dataDirectory.appendingPathComponent("cache").appendingPathComponent(key)
            let handle = try FileHandle(forUpdating: cached)
            try handle.seek(toOffset: 200)
            let byte = try handle.read(upToCount: 1) ?? Data([0])
            try handle.seek(toOffset: 200)
            try handle.write(contentsOf: Data([byte[0] ^ 0xFF]))
            try handle.close()
            let (damaged, repaired) = try render(edited, "v2-again.mov")
            #expect(try Self.rendered(farm, job: damaged) == ["video 3"])
            #expect(try frameHashes(repaired) == frameHashes(fresh))
            #expect(farm.coordinator!.output.contains("damaged; rendering them again"))

            // Emptied by farm prune --cache: the next job renders everything.
            let pruned = try farm.cli(["prune", "--cache"])
            #expect(pruned.status == 0 && pruned.stdout.contains("segment cache emptied"), "\(pruned.stdout)")
            try farm.wait("the cache folder emptied", timeout: 30) {
                (try? FileManager.default.contentsOfDirectory(atPath: cached.deletingLastPathComponent().path))?
                    .isEmpty ?? true
            }
            let (afterPrune, _) = try render(edited, "v2-after-prune.mov")
            #expect(try Self.rendered(farm, job: afterPrune).count == 36)
        }
    }
}
