import Foundation
import TestSupport
import Testing

/// `farm probe` says what ffprobe says of the files users bring, field by field; `farm validate`
/// warns once per asset of each conversion the render makes.
@Suite struct ProbeCommandTests {
    /// Sources chosen from the conformance suite for their variety: a transport stream, DV
    /// (anamorphic, BT.601), interlaced MPEG-2, a turned phone video, 5.1 sound, and HEVC 10-bit
    /// tagged HLG as iPhones record it.
    static let files: [(name: String, arguments: [String])] = [
        (
            "obs.ts",
            [
                "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=1", "-f", "lavfi", "-i",
                "sine=duration=1", "-c:v", "libx264", "-g", "30", "-pix_fmt", "yuv420p", "-c:a", "aac", "obs.ts",
            ]
        ),
        (
            "pal169.avi",
            [
                "-f", "lavfi", "-i", "testsrc2=size=720x576:rate=25:duration=1", "-vf", "setsar=64/45",
                "-c:v", "dvvideo", "-pix_fmt", "yuv420p", "pal169.avi",
            ]
        ),
        (
            "interlaced.mkv",
            [
                "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=1", "-c:v", "mpeg2video",
                "-flags", "+ilme+ildct", "-top", "1", "interlaced.mkv",
            ]
        ),
        (
            "rotated.mov",
            [
                "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=1", "-c:v", "libx264",
                "-pix_fmt", "yuv420p", "-metadata:s:v:0", "rotate=90", "rotated.mov",
            ]
        ),
        (
            "trailer51.mp4",
            [
                "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=24:duration=1", "-f", "lavfi", "-i",
                "sine=duration=1,aformat=channel_layouts=5.1", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac",
                "trailer51.mp4",
            ]
        ),
        (
            "iphone-hlg.mov",
            [
                "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=1", "-c:v", "libx265",
                "-pix_fmt", "yuv420p10le", "-x265-params", "log-level=error", "-color_primaries", "bt2020",
                "-color_trc", "arib-std-b67", "-colorspace", "bt2020nc", "-color_range", "tv", "-tag:v", "hvc1",
                "iphone-hlg.mov",
            ]
        ),
    ]

    @Test func everyFieldIsWhatFFprobeSays() throws {
        try withTemporaryDirectory { dir in
            for file in Self.files { try ffmpeg(file.arguments, in: dir) }
            let result = try runFarm(["probe", "--json"] + Self.files.map(\.name), in: dir)
            #expect(result.status == 0, "\(result.stderr)")
            let described = try #require(
                try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
            #expect(described.count == Self.files.count)
            for (file, ours) in zip(Self.files, described) {
                let theirs = try probe(dir.appendingPathComponent(file.name), ["-show_streams", "-show_format"])
                let format = try #require(theirs["format"] as? [String: Any])
                #expect(ours["startTime"] as? String == format["start_time"] as? String, "\(file.name) start")
                #expect(ours["container"] as? String == format["format_name"] as? String, "\(file.name) container")
                let streams = try #require(theirs["streams"] as? [[String: Any]])
                let ourStreams = try #require(ours["streams"] as? [[String: Any]])
                #expect(ourStreams.count == streams.count, "\(file.name) streams")
                for (stream, ourStream) in zip(streams, ourStreams) {
                    try compare(stream, ourStream, file: file.name)
                }
            }
            // Item 1's fields on the HLG file, spelled out.
            let hlg = try #require(described.last?["streams"] as? [[String: Any]]).first
            #expect(hlg?["colorTransfer"] as? String == "arib-std-b67")
            #expect(hlg?["bitDepth"] as? Int == 10)
            let text = try runFarm(["probe", "iphone-hlg.mov", "pal169.avi"], in: dir)
            #expect(text.stdout.contains("transfer arib-std-b67"), "\(text.stdout)")
            #expect(text.stdout.contains("SAR 64:45"), "\(text.stdout)")
        }
    }

    /// One ffprobe stream against ours: every field `farm probe` documents.
    private func compare(_ stream: [String: Any], _ ours: [String: Any], file: String) throws {
        let pairs: [(ffprobe: String, farm: String)] = [
            ("codec_type", "kind"), ("codec_name", "codec"), ("start_time", "startTime"), ("pix_fmt", "pixelFormat"),
            ("color_range", "colorRange"), ("color_space", "colorSpace"), ("color_primaries", "colorPrimaries"),
            ("color_transfer", "colorTransfer"), ("field_order", "fieldOrder"), ("channel_layout", "channelLayout"),
            ("sample_fmt", "sampleFormat"),
        ]
        for (theirs, farm) in pairs {
            guard let expected = stream[theirs] as? String else { continue }
            // Untagged: absent, as docs/cli.md says.
            guard expected != "unknown" else {
                #expect(ours[farm] == nil, "\(file) stream \(stream["index"] ?? "?") \(theirs): \(ours[farm]!)")
                continue
            }
            #expect(ours[farm] as? String == expected, "\(file) stream \(stream["index"] ?? "?") \(theirs)")
        }
        for (theirs, farm) in [("width", "width"), ("height", "height"), ("channels", "channels")] {
            guard let expected = stream[theirs] as? Int else { continue }
            #expect(ours[farm] as? Int == expected, "\(file) \(theirs)")
        }
        if let rate = stream["sample_rate"] as? String {
            #expect(ours["sampleRate"] as? Int == Int(rate), "\(file) sample_rate")
        }
        if let aspect = stream["sample_aspect_ratio"] as? String, stream["codec_type"] as? String == "video" {
            #expect(ours["sampleAspectRatio"] as? String == aspect, "\(file) sample_aspect_ratio")
        }
        if let rate = stream["avg_frame_rate"] as? String, rate != "0/0", stream["codec_type"] as? String == "video" {
            #expect(ours["frameRate"] as? String == rate, "\(file) avg_frame_rate")
        }
        // ffprobe's rotation is the display matrix's angle, counter-clockwise; ours is the turn
        // a player makes, clockwise.
        let sideData = stream["side_data_list"] as? [[String: Any]] ?? []
        if let rotation = sideData.compactMap({ $0["rotation"] as? Int }).first {
            #expect(ours["rotation"] as? Int == ((-rotation % 360) + 360) % 360, "\(file) rotation")
        }
    }

    /// A photo's EXIF Orientation is the turn (and mirror) the render makes: ffprobe reports
    /// none for a JPEG, as the orientation is on the decoded picture; `farm probe` says it.
    @Test func aPhotosEXIFOrientationIsTheTurnTheRenderMakes() throws {
        try withTemporaryDirectory { dir in
            for (name, orientation) in [("upright.jpg", 1), ("sideways.jpg", 6), ("mirrored.jpg", 2)] {
                try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=64x48", "-frames:v", "1", name], in: dir)
                try insertEXIFOrientation(UInt8(orientation), into: dir.appendingPathComponent(name))
            }
            let names = ["upright.jpg", "sideways.jpg", "mirrored.jpg"]
            let result = try runFarm(["probe", "--json"] + names, in: dir)
            #expect(result.status == 0, "\(result.stderr)")
            let described = try #require(
                try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
            let pictures = try described.map { try #require(($0["streams"] as? [[String: Any]])?.first) }
            #expect(pictures.map { $0["rotation"] as? Int } == [0, 90, 0])
            #expect(pictures.map { $0["mirrored"] as? Bool } == [nil, nil, true])
            let text = try runFarm(["probe"] + names, in: dir).stdout.split(separator: "\n")
            #expect(text.count == 6 && text[3].hasSuffix("turned 90°, 25/1 fps") && text[5].contains(", mirrored"))
            #expect(!text[1].contains("turned") && !text[1].contains("primaries"), "\(text[1])")
        }
    }

    @Test func validateWarnsOncePerAssetOfEachConversion() throws {
        try withTemporaryDirectory { dir in
            for file in Self.files where ["pal169.avi", "trailer51.mp4", "iphone-hlg.mov"].contains(file.name) {
                try ffmpeg(file.arguments, in: dir)
            }
            let project = dir.appendingPathComponent("p.json")
            try Data(
                """
                {"output": {"width": 320, "height": 240, "fps": "30"},
                 "assets": {"dv": {"path": "pal169.avi"}, "trailer": {"path": "trailer51.mp4"},
                            "phone": {"path": "iphone-hlg.mov"}},
                 "tracks": [{"kind": "video", "items": [
                   {"asset": "dv", "at": "0", "duration": "0.5"}, {"asset": "trailer", "at": "0.5", "duration": "0.5"},
                   {"asset": "phone", "at": "1", "duration": "0.5"},
                   {"asset": "phone", "at": "1.5", "duration": "0.5"}]}]}
                """.utf8
            ).write(to: project)
            let result = try runFarm(["validate", project.path], in: dir)
            #expect(result.status == 0, "\(result.stderr)")
            let warnings = result.stderr.split(separator: "\n").map(String.init)
            // Each line names the asset and its file (as resolved), then the conversion.
            func lines(_ asset: String, _ file: String, _ note: String) -> Int {
                warnings.filter {
                    $0.hasPrefix("\(project.path): warning: assets.\(asset) (") && $0.contains("\(file)): \(note)")
                }.count
            }
            #expect(lines("dv", "pal169.avi", "anamorphic pixels (64:45)") == 1, "\(warnings)")
            #expect(lines("trailer", "trailer51.mp4", "6-channel sound is mixed down to 2 channels") == 1)
            #expect(lines("phone", "iphone-hlg.mov", "HLG HDR pictures are tone-mapped to SDR BT.709") == 1)
            #expect(lines("phone", "iphone-hlg.mov", "10-bit pictures are composited in 8 bits") == 1)
            // Mono into stereo is no conversion to warn of; a caption file named otherwise than
            // .srt or .vtt is told how to say what it is.
            try ffmpeg(["-f", "lavfi", "-i", "sine=duration=1", "-ac", "1", "mono.wav"], in: dir)
            try Data("1\n00:00:00,000 --> 00:00:01,000\nHi\n".utf8).write(to: dir.appendingPathComponent("subs.txt"))
            try Data(
                """
                {"output": {"width": 320, "height": 240, "fps": "30"},
                 "assets": {"mono": {"path": "mono.wav"}, "subs": {"path": "subs.txt"}},
                 "tracks": [{"kind": "audio", "items": [{"asset": "mono", "at": "0", "duration": "1"}]},
                            {"kind": "video",
                             "items": [{"asset": "subs", "at": "0", "duration": "1", "captions": {}}]}]}
                """.utf8
            ).write(to: dir.appendingPathComponent("mono.json"))
            let captions = try runFarm(["validate", "mono.json"], in: dir)
            #expect(captions.status == 2)
            #expect(
                captions.stderr.contains(
                    "mono.json: tracks[1].items[0].captions: only an item whose asset is a caption file takes "
                        + "captions; assets.subs (subs.txt) is read as media: if it is a SubRip or WebVTT file, "
                        + "set \"type\": \"captions\" on it"), "\(captions.stderr)")
            try Data(
                """
                {"output": {"width": 320, "height": 240, "fps": "30"},
                 "assets": {"mono": {"path": "mono.wav"}, "subs": {"path": "subs.txt", "type": "captions"}},
                 "tracks": [{"kind": "audio", "items": [{"asset": "mono", "at": "0", "duration": "1"}]},
                            {"kind": "video",
                             "items": [{"asset": "subs", "at": "0", "duration": "1", "captions": {}}]}]}
                """.utf8
            ).write(to: dir.appendingPathComponent("mono.json"))
            let fixed = try runFarm(["validate", "mono.json"], in: dir)
            #expect(fixed.status == 0, "\(fixed.stderr)")
            #expect(!fixed.stderr.contains("warning"), "\(fixed.stderr)")
        }
    }

    @Test func aFileThatCannotBeReadIsNamed() throws {
        try withTemporaryDirectory { dir in
            try Data("not media".utf8).write(to: dir.appendingPathComponent("notes.txt"))
            let result = try runFarm(["probe", "notes.txt", "missing.mov"], in: dir)
            #expect(result.status == 2)
            #expect(result.stderr.contains("missing.mov: file not found"), "\(result.stderr)")
            #expect(result.stderr.contains("notes.txt"), "\(result.stderr)")
        }
    }
}
