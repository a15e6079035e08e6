import FarmCore
import Foundation
import TestSupport
import Testing

/// Captions through the real programs: `farm render --local` and a farm of two workers with
/// 7-frame chunks write the same burned-in frames and the same soft stream, whose cues the
/// coordinator's join takes from the project, and `farm validate` names a bad cue's line.
@Suite(.serialized) struct CaptionFarmTests {
    static let subRip = """
        1
        00:00:00,200 --> 00:00:00,700
        first, across the seam at frame 14

        2
        00:00:01,000 --> 00:00:01,250
        second
        """

    static let project = """
        {"output": {"width": 128, "height": 72, "fps": "30"},
         "export": {"container": "mp4", "video": {"codec": "h264", "lossless": true, "gop": 7}},
         "assets": {"subs": {"path": "talk.srt"}},
         "tracks": [{"kind": "video", "items": [{"solid": "#506070", "at": 0, "duration": 1.5}]},
                    {"kind": "video", "items": [{"asset": "subs", "at": 0, "duration": 1.5,
                      "captions": {"soft": true, "language": "eng", "style": {"size": 12}}}]}]}
        """

    @Test func theFarmJoinWritesTheSoftStreamAndTheSameFrames() throws {
        try withTemporaryDirectory { dir in
            try Data(Self.subRip.utf8).write(to: dir.appendingPathComponent("talk.srt"))
            try Data(Self.project.utf8).write(to: dir.appendingPathComponent("project.json"))
            let local = try runFarm(["render", "project.json", "-o", "local.mp4", "--local"], in: dir)
            #expect(local.status == 0, "\(local.stderr)")
            let farm = try runFarm(
                [
                    "render", "project.json", "-o", "farm.mp4", "--workers", "2", "--chunk-frames", "7",
                    "--data", dir.appendingPathComponent("farm-data").path, "--no-dashboard",
                ], in: dir)
            #expect(farm.status == 0, "\(farm.stderr)")
            let (localFile, farmFile) = (
                dir.appendingPathComponent("local.mp4"), dir.appendingPathComponent("farm.mp4")
            )
            #expect(try frameHashes(farmFile) == (try frameHashes(localFile)))
            let expected: [Range<Int64>] = [6..<21, 30..<38]
            for file in [localFile, farmFile] {
                let cues = try softCues(file)
                #expect(
                    cues.map(\.text) == ["first, across the seam at frame 14", "second"], "\(file.lastPathComponent)")
                #expect(cues.map(\.frames) == expected, "\(file.lastPathComponent)")
            }
        }
    }

    @Test func validateNamesTheCaptionFileAndLine() throws {
        try withTemporaryDirectory { dir in
            try Data((Self.subRip + "\n\n3\n00:00:02,000 --> 00:00:01,500\nbackwards\n").utf8).write(
                to: dir.appendingPathComponent("talk.srt"))
            try Data(Self.project.utf8).write(to: dir.appendingPathComponent("project.json"))
            let result = try runFarm(["validate", "project.json"], in: dir)
            #expect(result.status == 2)
            #expect(
                result.stderr
                    == "project.json: assets.subs.path: "
                    + "talk.srt:10: cue end 00:00:01,500 is before its start 00:00:02,000\n")
        }
    }
}
