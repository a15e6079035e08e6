import FarmCore
import FarmStore
import Foundation
import TestSupport
import Testing

/// Every export the docs offer, rendered end to end: each video codec in each container that
/// can hold it, with each audio codec, lossy and lossless, and every named preset. Each is
/// rendered by `farm render --local` and by a farm in one-frame (or one-GOP) chunks, and checked
/// with ffprobe and ffmpeg as oracles: the file decodes, frame and sample counts are exact, the
/// codec, tag, pixel format and level are the documented ones, the farm's file decodes to the
/// local one's frames and samples, and every lossless export to the same frames.
@Suite struct ExportMatrixTests {
    /// One export: the `export` JSON and what a file made with it must hold.
    struct Row: CustomStringConvertible {
        var export: String
        var container: String
        var codec: String
        var audio: String
        var lossless: Bool
        var tag: String? = nil
        var pixelFormat = "yuv420p"
        var profile: String? = nil

        var description: String { "\(export) as .\(container)" }
        /// A named preset's row (its export starts with the preset).
        var isPreset: Bool { export.hasPrefix(#"{"preset""#) }
        var name: String {
            export.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) }.map(String.init).joined()
                + "-\(container)"
        }
    }

    /// Where the docs (project-format.md) allow each codec; written out here, not taken from the
    /// product's own rule, which the test checks against it.
    static let containers: [(codec: String, containers: [String])] = [
        ("h264", ["mp4", "mov", "mkv"]), ("hevc", ["mp4", "mov", "mkv"]), ("ffv1", ["mov", "mkv"]),
        ("prores", ["mov", "mkv"]), ("av1", ["mp4", "mkv"]),
    ]

    static var rows: [Row] {
        var rows: [Row] = []
        for (codec, containers) in containers {
            for container in containers {
                for audio in container == "mp4" ? ["aac"] : ["aac", "pcm"] {
                    let losslessChoices = codec == "h264" || codec == "hevc" ? [false, true] : [codec == "ffv1"]
                    for lossless in losslessChoices {
                        let flag = codec == "h264" || codec == "hevc" ? #", "lossless": \#(lossless)"# : ""
                        let gop = codec == "ffv1" || codec == "prores" ? "" : #", "gop": 6"#
                        rows.append(
                            Row(
                                export:
                                    #"{"container": "\#(container)", "video": {"codec": "\#(codec)"\#(flag)\#(gop)},"#
                                    + #" "audio": {"codec": "\#(audio)"}}"#,
                                container: container, codec: codec == "h264" ? "h264" : codec, audio: audio,
                                lossless: lossless,
                                tag: codec == "hevc" && container != "mkv" ? "hvc1" : nil,
                                pixelFormat: codec == "prores" ? "yuv422p10le" : "yuv420p",
                                profile: codec == "prores" ? "HQ" : nil))
                    }
                }
            }
        }
        // The presets as documented, with GOPs short enough to make several chunks.
        rows += [
            Row(
                export: #"{"preset": "web", "video": {"gop": 6}}"#, container: "mp4", codec: "h264", audio: "aac",
                lossless: false, profile: "High"),
            Row(
                export: #"{"preset": "hevc-apple", "video": {"gop": 6}}"#, container: "mp4", codec: "hevc",
                audio: "aac", lossless: false, tag: "hvc1"),
            Row(
                export: #"{"preset": "master-prores"}"#, container: "mov", codec: "prores", audio: "pcm",
                lossless: false, pixelFormat: "yuv422p10le", profile: "HQ"),
            Row(
                export: #"{"preset": "archive-ffv1"}"#, container: "mkv", codec: "ffv1", audio: "pcm", lossless: true),
        ]
        return rows
    }

    /// Where `farm render` (the embedded farm) writes a preset row's file.
    /// The second farm render of a row, every chunk from the segment cache.
    static func again(_ row: Row, in dir: URL) -> URL {
        dir.appendingPathComponent("\(row.name)-again.\(row.container)")
    }

    static func embedded(_ row: Row, in dir: URL? = nil) -> URL {
        let name = "\(row.name)-embedded.\(row.container)"
        return dir?.appendingPathComponent(name) ?? URL(fileURLWithPath: name)
    }

    static let frames = 18
    static let samples = 28_800  // 0.6 s at 48 kHz

    /// The samples ffmpeg decodes from an export of `samples`. PCM: exactly those. AAC comes in
    /// 1024-sample frames after 1024 samples of encoder priming; FFmpeg 5.1 trims the priming an
    /// MP4 or MOV edit list declares but not the last frame's padding, and Matroska declares no
    /// priming: the ffmpeg program's own AAC files decode the same way. (The exact length an MP4
    /// or MOV declares is checked in `mismatches`.)
    static func decodedSamples(_ row: Row) -> Int {
        let encoded = (samples + 1024 + 1023) / 1024 * 1024
        return row.audio == "pcm" ? samples : row.container == "mkv" ? encoded : encoded - 1024
    }

    /// A cut between two clips, a picture-in-picture with an opacity ramp, a still, and music
    /// sped up with its pitch kept: 18 frames. On a farm, each of them is pinned media read
    /// through the block reader.
    static func project(export: String) -> String {
        """
        {
          "output": {"width": 64, "height": 64, "fps": "30"},
          "export": \(export),
          "assets": {"a": {"path": "a.mp4"}, "b": {"path": "b.mp4"}, "music": {"path": "music.wav"},
                     "logo": {"path": "logo.png"}},
          "tracks": [
            {"kind": "video", "items": [
              {"asset": "a", "at": "0", "duration": "0.3", "source": {"start": "0.5"}},
              {"asset": "b", "at": "0.3", "duration": "0.3"}]},
            {"kind": "video", "items": [
              {"asset": "b", "at": "0.1", "duration": "0.4", "source": {"start": "1"},
               "frame": [0.5, 0.5, 0.4, 0.4], "opacity": {"keys": [["0", 0.3], ["0.4", 1]]}}]},
            {"kind": "video", "items": [{"asset": "logo", "at": "0.2", "duration": "0.3", "frame": [0, 0, 0.4, 0.4]}]},
            {"kind": "audio", "items": [{"asset": "music", "at": "0", "duration": "0.6",
              "source": {"start": "0", "duration": "0.9"}, "preservePitch": true}]}
          ]
        }
        """
    }

    /// What a file decodes to: the frames' MD5s and the samples' MD5, and how many of each.
    struct Decoded: Equatable {
        var frames: [String]
        var samples: Int
        var sound: String
    }

    static func decode(_ file: URL) throws -> Decoded {
        let raw = file.deletingPathExtension().appendingPathExtension("s16")
        defer { try? FileManager.default.removeItem(at: raw) }
        try ffmpeg(["-i", file.path, "-map", "0:a", "-f", "s16le", "-ac", "2", raw.path])
        let sound = try Data(contentsOf: raw)
        let digest = try run("md5sum", [raw.path]).stdout.split(separator: " ").first.map(String.init) ?? ""
        return Decoded(frames: try frameHashes(file), samples: sound.count / 4, sound: digest)
    }

    /// Every documented property of `file` that `row` promises; a line per mismatch.
    static func mismatches(_ file: URL, _ row: Row) throws -> [String] {
        let info = try probe(file, ["-show_streams", "-show_format"])
        let streams = info["streams"] as? [[String: Any]] ?? []
        let format = info["format"] as? [String: Any] ?? [:]
        var problems: [String] = []
        func expect(_ actual: Any?, _ wanted: String, _ what: String) {
            if actual as? String != wanted { problems.append("\(what) is \(actual ?? "missing"), not \(wanted)") }
        }
        let formatName = format["format_name"] as? String ?? ""
        let brand = (format["tags"] as? [String: Any])?["major_brand"] as? String
        switch row.container {
        case "mkv": expect(formatName, "matroska,webm", "format")
        case "mov": expect(brand, "qt  ", "major brand")
        default: expect(brand, "isom", "major brand")
        }
        guard let video = streams.first(where: { $0["codec_type"] as? String == "video" }),
            let audio = streams.first(where: { $0["codec_type"] as? String == "audio" })
        else { return problems + ["streams: \(streams.count), not a video and an audio stream"] }
        expect(video["codec_name"], row.codec, "video codec")
        expect(video["pix_fmt"], row.pixelFormat, "pixel format")
        if let tag = row.tag { expect(video["codec_tag_string"], tag, "codec tag") }
        if let profile = row.profile { expect(video["profile"], profile, "profile") }
        expect(audio["codec_name"], row.audio == "aac" ? "aac" : "pcm_s16le", "audio codec")
        if row.container != "mkv" {
            expect(audio["duration_ts"].map { "\($0)" }, String(samples), "audio duration in samples")
        }
        if row.codec == "ffv1" {
            // FFV1's version lives in its global header; the decoder prints it when asked.
            let header = try run("ffprobe", ["-v", "error", "-debug", "pict", "-show_streams", file.path]).stderr
            if !header.contains("global: ver:3") { problems.append("FFV1 is not level 3: \(header.prefix(200))") }
        }
        return problems
    }

    @Test func everyCodecContainerAudioAndPresetRendersLocallyAndOnAFarm() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make(
                "a.mp4", in: dir, video: "testsrc2=size=96x64:rate=30:duration=2", audio: "sine=f=330:duration=2")
            try TestMedia.make("b.mp4", in: dir, video: "testsrc=size=64x96:rate=30:duration=2")
            try TestMedia.make("music.wav", in: dir, audio: "sine=f=440:duration=1")
            try TestMedia.make("logo.png", in: dir, video: "testsrc=size=32x32:rate=1", codec: ["-frames:v", "1"])
            let rows = Self.rows
            #expect(rows.count == 35)
            let farm = try TestFarm(directory: dir)
            try farm.start(workers: ["w1", "w2"])
            defer { farm.stopAll() }

            var jobs: [(row: Row, job: Int64, local: URL, farmed: URL)] = []
            for row in rows {
                let project = dir.appendingPathComponent("\(row.name).json")
                try Data(Self.project(export: row.export).utf8).write(to: project)
                let farmed = dir.appendingPathComponent("\(row.name)-farm.\(row.container)")
                let job = try farm.submit(project, output: farmed, chunkArguments: ["--chunk-frames", "1"])
                jobs.append((row, job, dir.appendingPathComponent("\(row.name)-local.\(row.container)"), farmed))
            }
            // While the farm renders every job, each export is rendered locally; two at a time,
            // as the checks after, since one render or one ffmpeg process rarely fills a core.
            // Threads of its own would lose the test's context, so they note problems and the
            // test's own thread reports them.
            let problems = Locked<[String]>([])
            func lanes(_ body: @escaping (Row, URL, URL, (Bool, String) -> Void) throws -> Void) {
                DispatchQueue.concurrentPerform(iterations: jobs.count) { index in
                    let (row, _, local, farmed) = jobs[index]
                    let note: (Bool, String) -> Void = { holds, problem in
                        if !holds { problems.withLock { $0.append("\(row): \(problem)") } }
                    }
                    do { try body(row, local, farmed, note) } catch { note(false, "\(error)") }
                }
            }
            lanes { row, local, _, expect in
                let result = try runFarm(
                    ["render", "\(row.name).json", "-o", local.lastPathComponent, "--local"], in: dir)
                expect(result.status == 0, "farm render --local exited \(result.status): \(result.stderr)")
                // The presets also through `farm render`'s own farm (its PostgreSQL, coordinator
                // and workers), in one-frame or one-GOP chunks.
                guard row.isPreset else { return }
                let embedded = try runFarm(
                    [
                        "render", "\(row.name).json", "-o", Self.embedded(row).lastPathComponent, "--chunk-frames",
                        "1", "--data", "farm-\(row.name)",
                    ], in: dir)
                expect(embedded.status == 0, "farm render exited \(embedded.status): \(embedded.stderr)")
            }
            for (row, job, _, _) in jobs {
                let record = try farm.finish(job, timeout: 240)
                #expect(record.state == .done, "\(row): job \(job) \(record.state) \(record.error ?? "")")
            }
            // Every export once more on the same farm: each chunk and audio block comes from the
            // segment cache (checked, linked and joined in that codec and container), none from
            // a worker; the files are compared below.
            var again: [(row: Row, job: Int64)] = []
            for (row, _, _, _) in jobs {
                let project = dir.appendingPathComponent("\(row.name).json")
                again.append(
                    (
                        row,
                        try farm.submit(
                            project, output: Self.again(row, in: dir), chunkArguments: ["--chunk-frames", "1"])
                    ))
            }
            for (row, job) in again {
                let record = try farm.finish(job, timeout: 240)
                #expect(record.state == .done, "\(row): job \(job) \(record.state) \(record.error ?? "")")
                let counts = try farm.store.connection.query(
                    """
                    SELECT count(*) FILTER (WHERE a.outcome = 'reused') AS reused,
                           count(*) FILTER (WHERE a.outcome <> 'reused') AS rendered
                    FROM attempts a JOIN chunks c ON c.id = a.chunk_id WHERE c.job_id = $1
                    """, [String(job)])[0]
                let (reused, rendered) = (
                    try counts.decode("reused", as: Int64.self), try counts.decode("rendered", as: Int64.self)
                )
                #expect(reused > 0 && rendered == 0, "\(row): \(rendered) rendered again")
            }
            let losslessFrames = Locked<[String: [String]]>([:])
            let pcmSound = Locked<[String: String]>([:])
            lanes { row, local, farmed, expect in
                for file in [local, farmed] {
                    let mismatches = try Self.mismatches(file, row)
                    expect(mismatches.isEmpty, "\(file.lastPathComponent): \(mismatches)")
                }
                let decodedLocal = try Self.decode(local)
                let decodedFarm = try Self.decode(farmed)
                expect(decodedLocal.frames.count == Self.frames, "\(decodedLocal.frames.count) frames")
                expect(decodedLocal.samples == Self.decodedSamples(row), "\(decodedLocal.samples) samples")
                expect(decodedFarm == decodedLocal, "the farm's chunks decode differently from --local")
                let reused = Self.again(row, in: dir)
                expect(try Self.mismatches(reused, row).isEmpty, "reused: \(try Self.mismatches(reused, row))")
                expect(try Self.decode(reused) == decodedFarm, "the cache's segments decode differently")
                if row.isPreset {
                    let embedded = Self.embedded(row, in: dir)
                    expect(
                        try Self.mismatches(embedded, row).isEmpty, "embedded: \(try Self.mismatches(embedded, row))")
                    expect(try Self.decode(embedded) == decodedLocal, "farm render decodes differently from --local")
                }
                if row.lossless { losslessFrames.withLock { $0[row.description] = decodedFarm.frames } }
                if row.audio == "pcm" { pcmSound.withLock { $0[row.description] = decodedFarm.sound } }
            }
            let found = problems.withLock { $0 }
            #expect(found.isEmpty, "\(found.count) problems:\n\(found.joined(separator: "\n"))")
            let lossless = losslessFrames.withLock { $0 }
            let pcm = pcmSound.withLock { $0 }
            // Lossless exports decode to the composited frames themselves, whatever the codec or
            // container; PCM sound is the mix itself.
            #expect(lossless.count == 15)
            #expect(Set(lossless.values).count == 1, "lossless exports differ: \(lossless.keys.sorted())")
            #expect(Set(lossless.values.flatMap { $0 }).count > 10, "the cut and the ramp must change frames")
            #expect(pcm.count == 15)
            #expect(Set(pcm.values).count == 1, "pcm exports differ")
        }
    }

    /// The docs' rule of which container holds which codec is the parser's.
    @Test func theContainerRuleIsTheDocumentedOne() {
        for codec in ExportSettings.VideoCodec.allCases {
            // Image codecs write numbered frames alone (ImageSequenceFarmTests renders them).
            let files =
                Self.containers.first { $0.codec == codec.rawValue }?.containers ?? (codec.isImage ? ["frames"] : [])
            // HLS (CMAF) takes what MP4 takes.
            let allowed = files + (files.contains("mp4") ? ["hls"] : [])
            for container in ExportSettings.Container.allCases {
                let (_, problems) = parseProjectText(
                    """
                    {"export": {"container": "\(container.rawValue)", "video": {"codec": "\(codec.rawValue)"}},
                     "output": {"width": 64, "height": 64},
                     "assets": {"a": {"path": "a.mp4"}},
                     "tracks": [{"kind": "video", "items": [{"asset": "a", "at": "0", "duration": "1"}]}]}
                    """)
                #expect(
                    problems.isEmpty == allowed.contains(container.rawValue),
                    "\(codec) in \(container): \(problems)")
            }
        }
    }
}
