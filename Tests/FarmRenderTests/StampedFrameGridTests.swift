import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// An MP4 whose first AAC packet is stamped longer than it decodes, as a Samsung phone's slow
/// motion writes it (1,245 samples for 1,024): every later stamp runs 221 samples past the
/// count. Sound read from the middle lands where a decode from the start puts it (ffmpeg's
/// own), on the grid of whole codec frames, not by the stamp.
@Suite struct StampedFrameGridTests {
    @Test func soundAfterALongStampedFirstPacketIsWhereADecodeFromTheStartPutsIt() throws {
        try withTemporaryDirectory { dir in
            try ffmpeg(
                [
                    "-f", "lavfi", "-i", "aevalsrc=0.4*sin(2*PI*700*t)+0.2*sin(2*PI*1900*t):s=12000:d=4",
                    "-c:a", "aac", "-b:a", "32k", "phone.m4a",
                ], in: dir)
            let file = dir.appendingPathComponent("phone.m4a")
            try Self.lengthenFirstSample(of: file, by: 221)
            let loaded = try loadProject(
                """
                {
                  "output": {"width": 64, "height": 36, "fps": "25", "audio": {"sampleRate": 48000, "channels": 2}},
                  "export": {"container": "mov", "audio": {"codec": "pcm"}},
                  "assets": {"s": {"path": "phone.m4a"}},
                  "tracks": [{"kind": "audio", "items": [
                    {"asset": "s", "at": "0", "duration": "3", "source": {"start": "0.5"}}]}]
                }
                """, in: dir)
            // Blocks of 1 s: the first decodes from the file's start, the others seek.
            let (whole, chunked) = try renderWholeAndChunked(loaded, in: dir, ext: "mov", seconds: Rational(1))
            let sound = try SurroundSources.decoded(whole)
            #expect(sound == (try SurroundSources.decoded(chunked)), "chunks differ from the whole render")
            let fromStart = try SurroundSources.decoded(
                file, ["-af", "aresample=48000,aformat=sample_fmts=fltp", "-ac", "2"])
            let first = 24000 * 2
            let expected = Array(fromStart[first..<(first + 3 * 48000 * 2)])
            #expect(sound.count == expected.count)
            let worst = zip(sound, expected).map { abs(Int($0) - Int($1)) }.max() ?? .max
            // By the stamps: 884 samples (221 at 12 kHz) late, thousands of levels off.
            #expect(worst <= 2, "up to \(worst) from the whole file's decode")
        }
    }

    /// Rewrites the sound track's `stts` so its first sample lasts `extra` ticks longer (one
    /// entry more; the boxes around it grow by 8 bytes; the file's `moov` follows its `mdat`,
    /// as ffmpeg writes it, so no chunk offset moves).
    static func lengthenFirstSample(of file: URL, by extra: UInt32) throws {
        var bytes = [UInt8](try Data(contentsOf: file))
        func word(_ at: Int) -> UInt32 { bytes[at..<(at + 4)].reduce(0) { $0 << 8 | UInt32($1) } }
        func put(_ value: UInt32, at: Int) { for k in 0..<4 { bytes[at + k] = UInt8(value >> (24 - 8 * k) & 0xFF) } }
        func find(_ path: [String], in range: Range<Int>) -> [Int]? {
            var at = range.lowerBound
            while at + 8 <= range.upperBound {
                let size = Int(word(at))
                guard size >= 8 else { return nil }
                if String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self) == path[0] {
                    if path.count == 1 { return [at] }
                    if let inner = find(Array(path.dropFirst()), in: (at + 8)..<(at + size)) { return [at] + inner }
                }
                at += size
            }
            return nil
        }
        guard let chain = find(["moov", "trak", "mdia", "minf", "stbl", "stts"], in: 0..<bytes.count) else {
            throw TestError.failed("no stts in \(file.lastPathComponent)")
        }
        let stts = chain.last!
        let (count, delta) = (word(stts + 16), word(stts + 20))
        guard word(stts + 12) >= 1, count > 1 else { throw TestError.failed("an unexpected stts") }
        // (count, delta) becomes (1, delta + extra), (count - 1, delta).
        put(count - 1, at: stts + 16)
        bytes.insert(contentsOf: [UInt8](repeating: 0, count: 8), at: stts + 16)
        put(1, at: stts + 16)
        put(delta + extra, at: stts + 20)
        put(word(stts + 12) + 1, at: stts + 12)
        for box in chain { put(word(box) + 8, at: box) }
        try Data(bytes).write(to: file)
    }
}
