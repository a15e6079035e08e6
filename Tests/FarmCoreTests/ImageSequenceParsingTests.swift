import FarmCore
import Foundation
import TestSupport
import Testing

/// Numbered-frames assets and outputs as the parser reads them: the pattern, `firstFrame` and
/// `frameRate`, the image codecs and their container, and every refusal by its JSON path.
@Suite struct ImageSequenceParsingTests {
    static func project(asset: String, export: String = "{}") -> String {
        """
        {"output": {"width": 320, "height": 240, "fps": "30"}, "export": \(export),
         "assets": {"a": \(asset)},
         "tracks": [{"kind": "video", "items": [{"asset": "a", "at": "0", "duration": "1"}]}]}
        """
    }

    @Test func aPatternPathIsNumberedFramesWithItsFirstFrameAndRate() throws {
        let (parsed, problems) = parseProjectText(
            Self.project(asset: #"{"path": "plates/shot010.%04d.exr", "firstFrame": 1001, "frameRate": "24000/1001"}"#))
        let asset = try #require(parsed?.assets["a"], "\(problems)")
        #expect(asset.path == "/media/plates/shot010.%04d.exr")
        #expect(asset.sequence == Asset.ImageSequence(firstFrame: 1001, frameRate: Rational(24000, 1001)))
        let pattern = try #require(asset.framePattern)
        #expect(pattern.path(1001) == "/media/plates/shot010.1001.exr")
        #expect(pattern.number(of: "shot010.0042.exr") == 42 && pattern.number(of: "shot010.42.exr") == nil)
        #expect(pattern.number(of: "shot010.12345.exr") == 12345, "past its width, as image2 numbers")
        let plain = try #require(parseProjectText(Self.project(asset: #"{"path": "f%d.png"}"#)).0?.assets["a"])
        #expect(plain.sequence == Asset.ImageSequence(firstFrame: nil, frameRate: nil))
        #expect(plain.framePattern?.number(of: "f7.png") == 7 && plain.framePattern?.number(of: "f07.png") == nil)
        let file = try #require(parseProjectText(Self.project(asset: #"{"path": "100%%.mov"}"#)).0?.assets["a"])
        #expect(file.sequence == nil, "%% is a literal percent sign, no frame number field")
    }

    @Test func badSequenceKeysAreRefusedByPath() {
        let expected = [
            (
                "{\"path\": \"a.mov\", \"firstFrame\": 1}",
                "assets.a.firstFrame: is for numbered frames: the path needs a frame number field such as %04d "
                    + "(got a.mov)"
            ),
            (
                "{\"path\": \"f.%04d.dpx\", \"firstFrame\": -3}",
                "assets.a.firstFrame: must be a frame number from 0 to 999999999 (got -3)"
            ),
            ("{\"path\": \"f.%04d.dpx\", \"frameRate\": 0}", "assets.a.frameRate: must be > 0 and at most 240 (got 0)"),
            ("{\"path\": \"f.%04d.dpx\", \"frameRate\": \"fast\"}", "assets.a.frameRate:"),
        ]
        for (asset, message) in expected {
            let problems = parseProjectText(Self.project(asset: asset)).1
            #expect(problems.contains { $0.hasPrefix(message) }, "\(message) not in \(problems)")
        }
    }

    @Test func anImageCodecIsNumberedFramesAndRefusesOtherContainersAndRenditions() throws {
        let asset = #"{"path": "a.mov"}"#
        let framed = try #require(
            parseProjectText(Self.project(asset: asset, export: #"{"video": {"codec": "dpx"}}"#)).0)
        #expect(framed.export.container == .frames && framed.export.video.isIntraOnly)
        #expect(framed.audioBlocks().isEmpty, "numbered frames carry no sound")
        for (codec, extensions) in [("png", ["png"]), ("tiff", ["tif", "tiff"]), ("dpx", ["dpx"]), ("exr", ["exr"])] {
            #expect(ExportSettings.VideoCodec(rawValue: codec)?.frameExtensions == extensions)
            for ext in extensions { #expect(ExportSettings.Container(fileExtension: ext) == .frames) }
        }
        let cases = [
            (
                #"{"container": "mp4", "video": {"codec": "png"}}"#,
                "export.video.codec: png needs container frames (container is mp4)"
            ),
            (
                #"{"container": "frames", "video": {"codec": "h264"}}"#,
                "export.video.codec: h264 needs container mp4, mov, mkv or hls (container is frames)"
            ),
            (
                #"{"video": {"codec": "exr"}, "renditions": [{"width": 160, "height": 120}]}"#,
                "export.renditions: numbered frames are one size in one format; renditions need container mp4, "
                    + "mov, mkv or hls"
            ),
        ]
        for (export, message) in cases {
            let problems = parseProjectText(Self.project(asset: asset, export: export)).1
            #expect(problems.contains(message), "\(message) not in \(problems)")
        }
    }

    @Test func oneStampCoversEveryFrameAndChangesWithAny() throws {
        try withTemporaryDirectory { dir in
            for number in 1...3 {
                try Data([UInt8(number)]).write(to: dir.appendingPathComponent("f.\(number).png"))
            }
            let pattern = try #require(FramePattern(path: dir.appendingPathComponent("f.%d.png").path))
            #expect(pattern.run(from: nil) == 1...3 && pattern.run(from: 2) == 2...3 && pattern.run(from: 4) == nil)
            let before = try #require(FileStamp(frames: pattern))
            #expect(before.size == 3)
            #expect(FileStamp(frames: pattern).map(before.isSameVersion) == true, "unchanged frames, the same stamp")
            // Rewritten in place with its old size: its ctime moves.
            usleep(20_000)
            try Data([9]).write(to: dir.appendingPathComponent("f.2.png"))
            let rewritten = try #require(FileStamp(frames: pattern))
            #expect(!rewritten.isSameVersion(as: before))
            try Data([4]).write(to: dir.appendingPathComponent("f.4.png"))
            #expect(pattern.run(from: nil) == 1...4)
            #expect(FileStamp(frames: pattern).map(rewritten.isSameVersion) == false, "a frame added")
            try FileManager.default.removeItem(at: dir.appendingPathComponent("f.4.png"))
            try FileManager.default.removeItem(at: dir.appendingPathComponent("f.1.png"))
            #expect(FileStamp(frames: pattern).map(rewritten.isSameVersion) == false, "a frame removed")
        }
    }

    /// A pin of numbered frames holds a digest per block of 256 numbers, so a worker checks the
    /// blocks a chunk reads: a frame rewritten changes its block's digest and no other, and a
    /// render reading a frame of that block fails as changed media.
    @Test func aPinHoldsEachBlockOfFramesSoARenderChecksOnlyTheBlocksItReads() throws {
        try withTemporaryDirectory { dir in
            for number in 250..<770 {
                try Data([UInt8(number % 251)]).write(to: dir.appendingPathComponent("f.\(number).png"))
            }
            let path = dir.appendingPathComponent("f.%d.png").path
            let pattern = try #require(FramePattern(path: path))
            let (parsed, problems) = parseProjectText(Self.project(asset: #"{"path": "\#(path)"}"#))
            let project = try #require(parsed, "\(problems)")
            let pin = try #require(try MediaPin.pins(of: project)["a"])
            let blocks = try #require(pin.frameBlocks)
            #expect(blocks.digests.keys.sorted() == [0, 1, 2, 3], "numbers 250 to 769: blocks 0 to 3")
            #expect(blocks.run == 250...769)
            #expect(pin.stamp.map { FileStamp(frames: pattern)?.isSameVersion(as: $0) } == true)
            for block in 0..<4 { #expect(FileStamp.frameBlock(block, of: pattern) == blocks.digest(ofBlock: block)) }
            usleep(20_000)
            try Data([7, 7]).write(to: dir.appendingPathComponent("f.600.png"))
            #expect(FileStamp.frameBlock(2, of: pattern) != blocks.digest(ofBlock: 2), "frame 600 is in block 2")
            #expect(FileStamp.frameBlock(1, of: pattern) == blocks.digest(ofBlock: 1))
            let reads = MediaReads(project: project, pins: ["a": pin], assets: ["a"])
            try reads.checkFrame(300, of: pattern)
            #expect(throws: MediaChangedError.self) { try reads.checkFrame(599, of: pattern) }
            #expect(reads.failure?.asset == "a")
            // A stray far-numbered file is one more block, not every block up to it.
            try Data([1]).write(to: dir.appendingPathComponent("f.5000000.png"))
            let far = try #require(try MediaPin.pins(of: project)["a"]?.frameBlocks)
            #expect(far.digests.count == 5 && far.run == 250...769)
        }
    }
}
