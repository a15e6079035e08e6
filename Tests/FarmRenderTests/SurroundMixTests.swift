import FarmCore
import FarmRender
import Foundation
import TestSupport
import Testing

/// A 5.1 output places stereo and mono sources where `ffmpeg -ac 6` does, and everything done
/// to an item's sound (volume ramps, speed with its pitch kept) still applies: stereo plays from
/// the front pair exactly as it does in a stereo output, mono from the centre exactly as in a
/// mono one, and the other channels stay silent.
@Suite struct SurroundMixTests {
    /// Two items of `asset` on two tracks, ramped, the second sped up with its pitch kept.
    static func project(asset: String, channels: Int) -> String {
        """
        {
          "output": {"width": 64, "height": 36, "fps": "30", "audio": {"sampleRate": 48000, "channels": \(channels)}},
          "export": {"container": "mkv", "video": {"codec": "ffv1"}, "audio": {"codec": "pcm"}},
          "assets": {"a": {"path": "\(asset)"}},
          "tracks": [
            {"kind": "audio", "items": [{"asset": "a", "at": "0", "duration": "2", "source": {"start": "0.3"},
              "volume": {"keys": [["0", 1], ["1.2", 0.2, "ease-in-out"], ["2", 0.7]]}}]},
            {"kind": "audio", "items": [{"asset": "a", "at": "1.1", "duration": "1.3",
              "source": {"start": "0", "duration": "1.7"}, "preservePitch": true,
              "volume": {"keys": [["0", 0.1], ["1.3", 0.9]]}}]}
          ]
        }
        """
    }

    /// The render's samples, interleaved as ffmpeg decodes them.
    static func samples(_ file: URL) throws -> [Int16] {
        let raw = file.deletingPathExtension().appendingPathExtension("s16")
        try ffmpeg(["-i", file.path, "-map", "0:a", "-f", "s16le", raw.path])
        return try Data(contentsOf: raw).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    /// Renders `asset` to `channels` channels and returns one array per channel.
    static func channels(of asset: String, _ channels: Int, in dir: URL) throws -> [[Int16]] {
        let loaded = try loadProject(project(asset: asset, channels: channels), in: dir)
        let interleaved = try samples(render(loaded, to: "\(asset)-\(channels).mkv", in: dir))
        return (0..<channels).map { channel in
            stride(from: channel, to: interleaved.count, by: channels).map { interleaved[$0] }
        }
    }

    @Test func stereoPlaysFromTheFrontPairAndMonoFromTheCentre() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make(
                "stereo.wav", in: dir, audio: "aevalsrc=0.6*sin(2*PI*(500+200*ch)*t):c=stereo:s=48000:d=3")
            try TestMedia.make("mono.wav", in: dir, audio: "sine=frequency=700:sample_rate=48000:duration=3")
            for (asset, narrow, placed) in [("stereo.wav", 2, [0, 1]), ("mono.wav", 1, [2])] {
                let reference = try Self.channels(of: asset, narrow, in: dir)
                let surround = try Self.channels(of: asset, 6, in: dir)
                #expect(surround.count == 6)
                for (channel, samples) in surround.enumerated() {
                    #expect(samples.count == 115_200, "\(asset): channel \(channel) has \(samples.count)")
                    if let index = placed.firstIndex(of: channel) {
                        let differing = zip(samples, reference[index]).filter { $0 != $1 }.count
                        #expect(differing == 0, "\(asset): 5.1 channel \(channel) differs at \(differing) samples")
                        let peak = samples.map { abs(Int($0)) }.max() ?? 0
                        #expect(peak > 3000, "\(asset): channel \(channel) peaks at \(peak)")
                    } else {
                        let sounding = samples.filter { $0 != 0 }.count
                        #expect(sounding == 0, "\(asset): 5.1 channel \(channel) sounds at \(sounding) samples")
                    }
                }
            }
        }
    }

    /// A 5.1 source in a 5.1 output, down-mixed by `ffmpeg -ac 2`, is its stereo render: the
    /// ramps and the pitch-kept speed do to each channel what they do to the down-mix.
    @Test func a51RenderDownMixedIsTheStereoRender() throws {
        try withTemporaryDirectory { dir in
            try TestMedia.make(
                "surround.wav", in: dir, audio: "aevalsrc=0.5*sin(2*PI*(300+110*ch)*t):c=5.1:s=48000:d=3")
            let stereo = try Self.channels(of: "surround.wav", 2, in: dir)
            let loaded = try loadProject(Self.project(asset: "surround.wav", channels: 6), in: dir)
            let surround = try render(loaded, to: "surround-6.mkv", in: dir)
            let raw = dir.appendingPathComponent("down.s16")
            try ffmpeg(["-i", surround.path, "-map", "0:a", "-ac", "2", "-f", "s16le", raw.path])
            let down = try Data(contentsOf: raw).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
            #expect(down.count == 2 * 115_200)
            // Two roundings to 16 bits and ffmpeg's own between its matrix and its output.
            let worst = down.indices.map { abs(Int(down[$0]) - Int(stereo[$0 % 2][$0 / 2])) }.max() ?? 0
            #expect(worst <= 2, "the down-mixed 5.1 render is up to \(worst) from the stereo render")
            #expect((stereo[0].map { abs(Int($0)) }.max() ?? 0) > 3000)
        }
    }
}
