import Foundation
import TestSupport
import Testing

/// `export.renditions` and HLS: every frame composited once and encoded into each rendition;
/// each rendition equal to a job that makes it alone, the farm's equal to one process's, the
/// package valid by RFC 8216 and by what its segments hold (Tests/Scripts/check_hls.py), its
/// DASH manifest by the live profile and ffmpeg's dash demuxer (Tests/Scripts/check_dash.py).
@Suite(.serialized) struct RenditionsTests {
    /// 14 s at 30 fps, GOP 1 s: HLS segments of 6, 6 and 2 s; two chunks a segment at 3 s chunks.
    static let ladder = #"""
        [{"name": "360p", "width": 640, "height": 360, "video": {"crf": 23}},
         {"width": 426, "height": 240, "video": {"crf": 26, "maxrate": 600000}},
         {"width": 320, "height": 180, "video": {"crf": 28, "maxrate": 300000, "bufsize": 300000}}]
        """#

    static func project(renditions: String) -> String {
        """
        {"output": {"width": 640, "height": 360, "fps": "30"},
         "export": {"video": {"codec": "h264", "preset": "veryfast", "gop": 30}, "renditions": \(renditions)},
         "assets": {"a": {"path": "a.mp4"}},
         "tracks": [
           {"kind": "video", "items": [{"asset": "a", "at": "0", "duration": "14"}]},
           {"kind": "video", "items": [{"asset": "a", "at": "2", "duration": "6", "source": {"start": "5"},
                                        "frame": [0.6, 0.6, 0.35, 0.35], "opacity": {"keys": [["0", 0], ["1", 1]]}}]},
           {"kind": "audio", "items": [{"asset": "a", "at": "0", "duration": "14"}]}]}
        """
    }

    /// Runs a package validator of Tests/Scripts on `file`.
    static func validate(_ file: String, with script: String, in dir: URL) throws -> ProcessResult {
        let path = DashboardBrowserTests.repository.appendingPathComponent("Tests/Scripts/\(script)").path
        return try run("python3", [path, file], in: dir)
    }

    static func write(_ text: String, _ name: String, in dir: URL) throws {
        try Data(text.utf8).write(to: dir.appendingPathComponent(name))
    }

    @Test func everyRenditionEqualsItsOwnJobAndTheFarmsEqualsOneProcesss() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make(
                "a.mp4", in: dir, video: "testsrc2=size=960x540:rate=30:duration=14",
                audio: "sine=frequency=330:duration=14", extra: ["-shortest"])
            try Self.write(Self.project(renditions: Self.ladder), "ladder.json", in: dir)
            let data = dir.appendingPathComponent("farm-data").path
            let local = try runFarm(["render", "ladder.json", "-o", "local.m3u8", "--local"], in: dir)
            try #require(local.status == 0, "\(local.stderr)")
            #expect(
                local.stdout.contains(
                    "renditions: local/360p/index.m3u8 (640x360 h264), local/240p/index.m3u8 (426x240 h264), "
                        + "local/180p/index.m3u8 (320x180 h264)"),
                "\(local.stdout)")
            let farm = try runFarm(
                [
                    "render", "ladder.json", "-o", "farm.m3u8", "--workers", "2", "--chunk-seconds", "3", "--no-cache",
                    "--data", data, "--no-dashboard",
                ], in: dir)
            try #require(farm.status == 0, "\(farm.stderr)")

            // The validator: RFC 8216's rules and the master's figures against the segments.
            for master in ["local.m3u8", "farm.m3u8"] {
                let check = try Self.validate(master, with: "check_hls.py", in: dir)
                #expect(check.status == 0, "\(master): \(check.stdout)\(check.stderr)")
                #expect(
                    check.stdout.contains("local/360p/index.m3u8: 640x360, 3 segments") || master != "local.m3u8",
                    "\(check.stdout)")
            }
            #expect(local.stdout.contains("DASH: local.mpd (the same segments)"), "\(local.stdout)")
            // The DASH manifest of the same segments: the live profile's rules, the files it
            // names, and ffmpeg's dash demuxer playing each rendition as its HLS playlist does.
            for manifest in ["local.mpd", "farm.mpd"] {
                let check = try Self.validate(manifest, with: "check_dash.py", in: dir)
                #expect(check.status == 0, "\(manifest): \(check.stdout)\(check.stderr)")
                #expect(check.stdout.contains("360p: 640x360, 3 segments"), "\(check.stdout)")
            }
            let localManifest = try String(contentsOf: dir.appendingPathComponent("local.mpd"), encoding: .utf8)
            let farmManifest = try String(contentsOf: dir.appendingPathComponent("farm.mpd"), encoding: .utf8)
            #expect(
                localManifest.replacingOccurrences(of: "local/", with: "farm/") == farmManifest,
                "the farm's manifest is one process's")
            let master = try String(contentsOf: dir.appendingPathComponent("farm.m3u8"), encoding: .utf8)
            #expect(
                master.contains(#"CODECS="avc1.64001e,mp4a.40.2",RESOLUTION=640x360,FRAME-RATE=30.000,AUDIO="audio""#),
                "\(master)")
            #expect(master.contains(#"URI="farm/audio/index.m3u8""#), "\(master)")

            // The farm's package is one process's, segment for segment.
            for name in ["360p", "240p", "180p", "audio"] {
                for file in ["init.mp4", "00001.m4s", "00002.m4s", "00003.m4s"] {
                    let a = try Data(contentsOf: dir.appendingPathComponent("local/\(name)/\(file)"))
                    let b = try Data(contentsOf: dir.appendingPathComponent("farm/\(name)/\(file)"))
                    #expect(a == b, "\(name)/\(file): the farm's differs from --local's")
                }
            }

            // Each rendition decodes to the frames of a job that makes it alone (ffmpeg's decode),
            // and to the frames of the same ladder written as files.
            let mp4 = try runFarm(["render", "ladder.json", "-o", "ladder.mp4", "--local"], in: dir)
            try #require(mp4.status == 0, "\(mp4.stderr)")
            let files = ["360p": "ladder.mp4", "240p": "ladder.240p.mp4", "180p": "ladder.180p.mp4"]
            let rungs = try JSONSerialization.jsonObject(with: Data(Self.ladder.utf8)) as! [[String: Any]]
            for (index, name) in ["360p", "240p", "180p"].enumerated() {
                let alone = try JSONSerialization.data(withJSONObject: [rungs[index]])
                try Self.write(
                    Self.project(renditions: String(decoding: alone, as: UTF8.self)), "\(name).json", in: dir)
                let single = try runFarm(["render", "\(name).json", "-o", "\(name)-alone.mp4", "--local"], in: dir)
                try #require(single.status == 0, "\(single.stderr)")
                let expected = try frameHashes(dir.appendingPathComponent("\(name)-alone.mp4"))
                #expect(expected.count == 420)
                #expect(try frameHashes(dir.appendingPathComponent("farm/\(name)/index.m3u8")) == expected, "\(name)")
                #expect(try frameHashes(dir.appendingPathComponent(files[name]!)) == expected, "\(name)")
            }
            // The sound is the file's: the same samples, but for the 1,024 of AAC's priming the
            // hls muxer keeps at its start, as the ffmpeg program's own HLS output keeps them.
            let soundHLS = try ffmpeg(["-i", "farm/audio/index.m3u8", "-f", "s16le", "hls.raw"], in: dir)
            let soundFile = try ffmpeg(["-i", "ladder.mp4", "-map", "0:a", "-f", "s16le", "mp4.raw"], in: dir)
            #expect(soundHLS.status == 0 && soundFile.status == 0)
            let hlsSamples = try Data(contentsOf: dir.appendingPathComponent("hls.raw"))
            let fileSamples = try Data(contentsOf: dir.appendingPathComponent("mp4.raw"))
            #expect(fileSamples.count >= 14 * 48000 * 4)
            #expect(hlsSamples.count == fileSamples.count + 1024 * 4)
        }
    }

    /// The farm's QC report lists every rendition, and an HLS job's is read through its playlists.
    @Test func theQCReportMeasuresEveryRendition() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make(
                "a.mp4", in: dir, video: "testsrc2=size=640x360:rate=30:duration=14",
                audio: "sine=frequency=330:duration=14", extra: ["-shortest"])
            try Self.write(Self.project(renditions: Self.ladder), "ladder.json", in: dir)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.start(workers: ["w1", "w2"])
            for (name, container) in [("out.mp4", "mp4"), ("show.m3u8", "hls")] {
                let output = dir.appendingPathComponent(name)
                let job = try farm.submit(
                    dir.appendingPathComponent("ladder.json"), output: output,
                    chunkArguments: ["--chunk-seconds", "4", "--no-cache"])
                #expect(try farm.finish(job).state == .done, "\(farm.logs)")
                let qc = try farm.cli(["qc", String(job), "--json"])
                try #require(qc.status == 0, "\(qc.stderr)")
                let report = try #require(
                    try JSONSerialization.jsonObject(with: Data(qc.stdout.utf8)) as? [String: Any])
                #expect(report["container"] as? String == container || container == "mp4", "\(report)")
                let video = report["video"] as? [String: Any]
                #expect(video?["frames"] as? Int == 420 && video?["width"] as? Int == 640, "\(report)")
                #expect((report["seams"] as? [String: Any])?["broken"] as? [String] == [], "\(report)")
                #expect((report["audio"] as? [String: Any])?["sampleRate"] as? Int == 48000, "\(report)")
                let renditions = report["renditions"] as? [[String: Any]] ?? []
                #expect(renditions.compactMap { $0["name"] as? String } == ["240p", "180p"], "\(report)")
                for rendition in renditions {
                    let video = rendition["video"] as? [String: Any]
                    #expect(video?["frames"] as? Int == 420, "\(rendition)")
                    #expect((rendition["seams"] as? [String: Any])?["broken"] as? [String] == [], "\(rendition)")
                    #expect((rendition["bytes"] as? Int ?? 0) > 0, "\(rendition)")
                }
                #expect((renditions.last?["video"] as? [String: Any])?["height"] as? Int == 180)
            }
        }
    }
    /// Soft captions become a WebVTT subtitles rendition every variant names, its cues timed by
    /// the frames the file containers' soft stream gives them.
    @Test func anHLSPackageCarriesSoftCaptionsAsWebVTT() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make("tone.wav", in: dir, audio: "sine=frequency=440:duration=2")
            try Data(CaptionFarmTests.subRip.utf8).write(to: dir.appendingPathComponent("talk.srt"))
            let project = CaptionFarmTests.project.replacingOccurrences(
                of: #""lossless": true, "#, with: "")
            try Self.write(project, "captions.json", in: dir)
            for output in ["show.m3u8", "show.mp4"] {
                let result = try runFarm(["render", "captions.json", "-o", output, "--local"], in: dir)
                try #require(result.status == 0, "\(output): \(result.stderr)")
            }
            let check = try Self.validate("show.m3u8", with: "check_hls.py", in: dir)
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
            #expect(check.stdout.contains("subtitles subtitles: cues.vtt"), "\(check.stdout)")
            let master = try String(contentsOf: dir.appendingPathComponent("show.m3u8"), encoding: .utf8)
            #expect(
                master.contains(
                    #"#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subtitles",NAME="eng",LANGUAGE="eng",DEFAULT=NO,"#
                        + #"AUTOSELECT=YES,URI="show/subtitles-eng/index.m3u8""#), "\(master)")
            #expect(master.contains(#"AUDIO="audio",SUBTITLES="subtitles""#), "\(master)")
            let vtt = try String(
                contentsOf: dir.appendingPathComponent("show/subtitles-eng/cues.vtt"), encoding: .utf8)
            // Each cue's times back to frames (the times are the frames' starts, to the millisecond
            // below): the soft stream's frames in the MP4 of the same project.
            var cues: [(text: String, frames: Range<Int64>)] = []
            let lines = vtt.split(separator: "\n").map(String.init)
            for (index, line) in lines.enumerated() where line.contains(" --> ") {
                let frames = line.components(separatedBy: " --> ").map { time -> Int64 in
                    let parts = time.split(whereSeparator: { $0 == ":" || $0 == "." }).compactMap { Int64($0) }
                    let milliseconds = ((parts[0] * 60 + parts[1]) * 60 + parts[2]) * 1000 + parts[3]
                    return (milliseconds * 30 + 999) / 1000
                }
                cues.append((lines[index + 1], frames[0]..<frames[1]))
            }
            let file = try softCues(dir.appendingPathComponent("show.mp4"))
            #expect(cues.map(\.text) == file.map(\.text) && cues.map(\.frames) == file.map(\.frames), "\(vtt)")
            #expect(cues.map(\.frames) == [6..<21, 30..<38], "\(vtt)")
        }
    }
}
