import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// A cut-only timeline must match ffmpeg's own trim + concat of the same ranges, frame for frame.
@Suite struct CutOracleTests {
    @Test func threeTrimmedClipsMatchFFmpegConcat() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make("a.mp4", in: dir, video: "testsrc2=size=320x240:rate=30:duration=4")
            try TestMedia.make("b.mp4", in: dir, video: "testsrc=size=320x240:rate=30:duration=4")
            let loaded = try loadProject(
                """
                {
                  "output": {"width": 320, "height": 240, "fps": "30"},
                  "export": {"container": "mkv", "video": {"codec": "h264", "lossless": true},
                    "audio": {"codec": "pcm"}},
                  "assets": {"a": {"path": "a.mp4"}, "b": {"path": "b.mp4"}},
                  "tracks": [{"kind": "video", "items": [
                    {"asset": "a", "at": "0", "duration": "1", "source": {"start": "0.5"}},
                    {"asset": "b", "at": "1", "duration": "0.6", "source": {"start": "1"}},
                    {"asset": "a", "at": "1.6", "duration": "1", "source": {"start": "2"}}
                  ]}]
                }
                """, in: dir)
            #expect(loaded.project.frameCount == 78)
            let output = try render(loaded, to: "out.mkv", in: dir)
            let graph = """
                [0:v]split[a1][a2];\
                [a1]trim=start_frame=15:end_frame=45,setpts=PTS-STARTPTS[c1];\
                [1:v]trim=start_frame=30:end_frame=48,setpts=PTS-STARTPTS[c2];\
                [a2]trim=start_frame=60:end_frame=90,setpts=PTS-STARTPTS[c3];\
                [c1][c2][c3]concat=n=3:v=1:a=0[out]
                """
            let oracle = try ffmpeg(
                [
                    "-i", dir.appendingPathComponent("a.mp4").path, "-i", dir.appendingPathComponent("b.mp4").path,
                    "-filter_complex", graph, "-map", "[out]", "-pix_fmt", "yuv420p", "-f", "framemd5", "-",
                ])
            let expected = oracle.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }
                .map { String($0.split(separator: ",").last!.trimmingCharacters(in: .whitespaces)) }
            let actual = try frameHashes(output)
            #expect(expected.count == 78)
            #expect(actual == expected)
        }
    }
}
