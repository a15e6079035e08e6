import FarmCore
import FarmMedia

/// Mixes every sounding item of a timeline into one sample-exact stream.
///
/// Sound comes from audio-track items and from video-track items whose media has sound (unless
/// `muted`). An item covers timeline samples `[round(at * rate), round(end * rate))`; its volume
/// (constant or keyframed) is evaluated at every sample (`VolumeEnvelope`). Sound is mixed in
/// audio blocks that depend on the project alone (`AudioBlocks`), never per video chunk.
public final class AudioMixer {
    private struct Voice {
        var key: Int
        var item: Item
        var envelope: VolumeEnvelope
        var path: String
        var first: Int64
        var end: Int64
    }

    private let layout: AudioLayout
    private let voices: [Voice]
    private var readers: [Int: (reader: AudioReader, position: Int64)] = [:]
    private let block: SampleBlock
    /// Per-sample gains of the voice being mixed; reused, so mixing allocates nothing per block.
    private var gains: [Float] = []

    public init(loaded: LoadedProject, blockCapacity: Int = 4096) {
        let project = loaded.project
        layout = project.output.audio
        let rate = Rational(Int64(layout.sampleRate))
        var voices: [Voice] = []
        for track in project.tracks {
            for item in track.items where !item.muted {
                guard let id = item.asset, let info = loaded.media[id], info.hasAudio, let asset = project.assets[id]
                else {
                    continue
                }
                voices.append(
                    Voice(
                        key: voices.count, item: item,
                        envelope: VolumeEnvelope(item.volume, sampleRate: layout.sampleRate), path: asset.path,
                        first: (item.at * rate).rounded,
                        end: (item.end * rate).rounded))
            }
        }
        self.voices = voices
        block = SampleBlock(channels: layout.channels, capacity: blockCapacity)
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
            let gain = voice.envelope.gains(from: local, count: Int(to - from), into: &gains)
            try entry!.reader.read(count: Int(to - from), into: block, at: Int(from - start), gain: gain)
            entry!.position = local + (to - from)
            readers[voice.key] = to == voice.end ? nil : entry
        }
        return block
    }
}
