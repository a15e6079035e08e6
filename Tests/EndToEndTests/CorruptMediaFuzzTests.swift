import FarmCore
import Foundation
import TestSupport
import Testing

/// Truncated and bit-flipped media of every kind the farm reads, through `farm validate` in a
/// child process: it must exit 0 or 2, never die of a signal or hang, and a refusal is one line
/// naming the file. Seeded; `FARM_MEDIA_FUZZ_FILES` sets how many (default 60; the recorded run
/// used 1,000).
@Suite struct CorruptMediaFuzzTests {
    @Test func corruptMediaIsRefusedWithoutACrash() throws {
        try withTemporaryDirectory { dir in
            let goods = [
                try TestMedia.make(
                    "good.mp4", in: dir, video: "testsrc2=size=64x48:rate=30:duration=1",
                    audio: "sine=duration=1"),
                try TestMedia.make(
                    "good.mkv", in: dir, video: "testsrc=size=64x48:rate=25:duration=1", audio: "sine=duration=1"),
                try TestMedia.make("good.mov", in: dir, video: "mandelbrot=size=64x48:rate=30", extra: ["-t", "1"]),
                try TestMedia.make("good.wav", in: dir, audio: "sine=duration=1"),
            ]
            try ffmpeg(["-f", "lavfi", "-i", "testsrc=size=64x48", "-frames:v", "1", "good.png"], in: dir)
            try ffmpeg(["-f", "lavfi", "-i", "testsrc=size=64x48", "-frames:v", "1", "good.jpg"], in: dir)
            let files = goods + [dir.appendingPathComponent("good.png"), dir.appendingPathComponent("good.jpg")]
            let count = ProcessInfo.processInfo.environment["FARM_MEDIA_FUZZ_FILES"].flatMap(Int.init) ?? 60
            var random = SeededRandom(state: 1122)
            var (accepted, refused) = (0, 0)
            for n in 0..<count {
                let source = files[n % files.count]
                var bytes = [UInt8](try Data(contentsOf: source))
                if random.below(2) == 0 {
                    bytes = Array(bytes.prefix(random.below(bytes.count)))
                } else {
                    for _ in 0...random.below(20) { bytes[random.below(bytes.count)] ^= UInt8(1 << random.below(8)) }
                }
                let name = "bad-\(n).\(source.pathExtension)"
                try Data(bytes).write(to: dir.appendingPathComponent(name))
                let kind = source.pathExtension == "wav" ? "audio" : "video"
                try Data(
                    """
                    {"assets": {"m": {"path": "\(name)"}},
                     "tracks": [{"kind": "\(kind)", "items": [{"asset": "m", "at": "0", "duration": "1",
                       "pastEnd": "hold"}]}]}
                    """.utf8
                ).write(to: dir.appendingPathComponent("p-\(n).json"))
                let result = try run(farmProgram, ["validate", "p-\(n).json"], in: dir, timeout: 60)
                #expect(result.status == 0 || result.status == 2, "\(name): exit \(result.status) \(result.stderr)")
                if result.status == 2 {
                    refused += 1
                    #expect(result.stderr.split(separator: "\n").count == 1, "\(name): \(result.stderr)")
                    #expect(result.stderr.contains(name) || result.stderr.contains("assets.m"), "\(result.stderr)")
                } else {
                    accepted += 1
                }
                try? FileManager.default.removeItem(at: dir.appendingPathComponent(name))
            }
            print("media fuzz: \(count) files, \(accepted) accepted, \(refused) refused, no crash")
        }
    }

    /// Media is probed in a child process: a file that crashes FFmpeg's probe (a stand-in
    /// prober crashes on it) is reported as that asset's problem, in one line, exit 2.
    @Test func aFileThatCrashesTheProbeIsReportedAsItsAssetsProblem() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make("good.wav", in: dir, audio: "sine=duration=1")
            try TestMedia.make("bad.wav", in: dir, audio: "sine=duration=1")
            let prober = dir.appendingPathComponent("crashing-prober")
            try writeExecutable(
                """
                #!/bin/sh
                while IFS= read -r path; do
                  case "$path" in *bad.wav*) kill -SEGV $$ ;; esac
                  printf '%s\\n' "$path" | \(farmProgram) probe-media
                done

                """, to: prober)
            try Data(
                """
                {"assets": {"good": {"path": "good.wav"}, "bad": {"path": "bad.wav"}},
                 "tracks": [{"kind": "audio", "items": [{"asset": "good", "at": "0", "duration": "1"},
                                                        {"asset": "bad", "at": "1", "duration": "1"}]}]}
                """.utf8
            ).write(to: dir.appendingPathComponent("p.json"))
            let result = try run(farmProgram, ["validate", "p.json", "--media-prober", prober.path], in: dir)
            #expect(result.status == 2, "\(result.stderr)")
            let bad = dir.appendingPathComponent("bad.wav").path
            #expect(result.stderr == "p.json: assets.bad.path: the probe crashed (signal 11): \(bad)\n")
            // The same project with the real probe: both files are fine.
            let real = try run(farmProgram, ["validate", "p.json"], in: dir)
            #expect(real.status == 0, "\(real.stderr)")
            let rendered = try run(
                farmProgram, ["render", "p.json", "-o", "out.wav", "--local", "--media-prober", prober.path], in: dir)
            #expect(rendered.status == 2, "\(rendered.stderr)")
            #expect(rendered.stderr.contains("assets.bad.path: the probe crashed (signal 11)"), "\(rendered.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.wav").path))
        }
    }
}
