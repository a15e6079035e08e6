import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// An AVI whose index marks no sound chunk as a keyframe, as a digital camera's does: its
/// demuxer cannot seek the sound, even to 0 (EPERM). The farm seeks by the file's pictures, as
/// `ffmpeg -ss` does, and reads the sound on from where that lands.
@Suite struct UnindexedSoundSeekTests {
    @Test func soundOfAnAVIWhoseIndexKeysNoSoundChunkIsTheWholeDecodes() throws {
        try withTemporaryDirectory { dir in
            try ffmpeg(
                [
                    "-f", "lavfi", "-i", "testsrc=size=64x36:rate=15:duration=3",
                    "-f", "lavfi", "-i", "aevalsrc=0.4*sin(2*PI*5000*t)|0.3*sin(2*PI*3000*t):s=22050:d=3",
                    "-c:v", "mjpeg", "-c:a", "pcm_s16le", "camera.avi",
                ], in: dir)
            let file = dir.appendingPathComponent("camera.avi")
            try Self.unkeySoundChunks(file)
            let loaded = try loadProject(
                """
                {
                  "output": {"width": 64, "height": 36, "fps": "15", "audio": {"sampleRate": 48000, "channels": 2}},
                  "export": {"container": "mov", "video": {"codec": "ffv1"}, "audio": {"codec": "pcm"}},
                  "assets": {"c": {"path": "camera.avi"}},
                  "tracks": [{"kind": "video", "items": [
                    {"asset": "c", "at": "0", "duration": "1.4", "source": {"start": "1.2"}}]}]
                }
                """, in: dir)
            // Chunks of 7 frames: every chunk and audio block seeks into the file.
            let (whole, chunked) = try renderWholeAndChunked(loaded, in: dir, ext: "mov", seconds: Rational(7, 15))
            #expect(try differingFrames(whole, chunked).isEmpty)
            let sound = try SurroundSources.decoded(whole)
            #expect(sound == (try SurroundSources.decoded(chunked)), "chunks differ from the whole render")

            // ffmpeg's decode of the whole file, resampled in float as the farm resamples.
            let fromStart = try SurroundSources.decoded(file, ["-af", "aresample=48000,aformat=sample_fmts=fltp"])
            let first = Int(1.2 * 48000) * 2
            let expected = Array(fromStart[first..<(first + Int(1.4 * 48000) * 2)])
            #expect(sound.count == expected.count)
            let worst = zip(sound, expected).map { abs(Int($0) - Int($1)) }.max() ?? .max
            #expect(worst <= 2, "up to \(worst) from the whole file's decode")
        }
    }

    /// Clears the keyframe flag (AVIIF_KEYFRAME) of every sound entry ("01wb") in the file's
    /// `idx1` index, leaving the pictures' entries as they are.
    static func unkeySoundChunks(_ file: URL) throws {
        var bytes = [UInt8](try Data(contentsOf: file))
        let tag = Array("idx1".utf8)
        guard let at = (0..<(bytes.count - 8)).last(where: { Array(bytes[$0..<($0 + 4)]) == tag }) else {
            throw TestError.failed("no idx1 in \(file.lastPathComponent)")
        }
        let size = bytes[(at + 4)..<(at + 8)].reversed().reduce(0) { $0 << 8 | Int($1) }
        var unkeyed = 0
        for entry in stride(from: at + 8, to: at + 8 + size, by: 16)
        where Array(bytes[entry..<(entry + 4)]) == Array("01wb".utf8) {
            for offset in 4..<8 { bytes[entry + offset] = 0 }
            unkeyed += 1
        }
        guard unkeyed > 0 else { throw TestError.failed("no sound entries in the index") }
        try Data(bytes).write(to: file)
    }
}
