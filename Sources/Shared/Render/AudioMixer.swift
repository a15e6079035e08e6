import FarmCore
import FarmMedia

/// Mixes every sounding item of a timeline into one sample-exact stream.
///
/// Sound comes from audio-track items and from video-track items whose media has sound (unless
/// `muted`). An item covers timeline samples `[round(at * rate), round(end * rate))`; its volume
/// (constant or keyframed) is evaluated at every sample's exact time. The timeline's audio is
/// mixed and encoded once for the whole render, never per chunk.
public final class AudioMixer {
    private struct Voice {
        var key: Int
        var item: Item
        var path: String
        var first: Int64
        var end: Int64
    }

    private let layout: AudioLayout
    private let voices: [Voice]
    private var readers: [Int: (reader: AudioReader, position: Int64)] = [:]
    private let block: SampleBlock

    public init(loaded: LoadedProject, blockCapacity: Int = 4096) {
        let project = loaded.project
        layout = project.output.audio
        let rate = Rational(Int64(layout.sampleRate))
        var voices: [Voice] = []
        for track in project.tracks {
            for item in track.items where !item.muted {
                guard let info = loaded.media[item.asset], info.hasAudio, let asset = project.assets[item.asset] else {
                    continue
                }
                voices.append(
                    Voice(
                        key: voices.count, item: item, path: asset.path, first: (item.at * rate).rounded,
                        end: (item.end * rate).rounded))
            }
        }
        self.voices = voices
        block = SampleBlock(channels: layout.channels, capacity: blockCapacity)
    }

    /// The number of timeline samples up to the start of output frame `n`.
    public static func sampleIndex(ofFrame n: Int64, output: OutputSettings) -> Int64 {
        (output.time(ofFrame: n) * Rational(Int64(output.audio.sampleRate))).rounded
    }

    /// Mixes timeline samples `[start, start + count)` (count at most the block capacity) and
    /// returns them, valid until the next call.
    public func mix(from start: Int64, count: Int) throws -> SampleBlock {
        block.clear(count: count)
        let end = start + Int64(count)
        for voice in voices where voice.first < end && start < voice.end {
            let from = max(start, voice.first)
            let to = min(end, voice.end)
            let local = from - voice.first
            var entry = readers[voice.key]
            if entry == nil || entry!.position != local {
                entry = (try AudioReader(path: voice.path, item: voice.item, layout: layout, offset: local), local)
            }
            let rate = Int64(layout.sampleRate)
            let volume = voice.item.volume
            let gain: (Int) -> Float
            if case .constant(let value) = volume {
                let constant = Float(value)
                gain = { _ in constant }
            } else {
                gain = { i in Float(volume.value(at: Rational(local + Int64(i), rate))) }
            }
            try entry!.reader.read(count: Int(to - from), into: block, at: Int(from - start), gain: gain)
            entry!.position = local + (to - from)
            readers[voice.key] = to == voice.end ? nil : entry
        }
        return block
    }
}
