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
            for (index, original) in track.items.enumerated() where !original.muted {
                guard let id = original.asset, let info = loaded.media[id], info.hasAudio,
                    let asset = project.assets[id]
                else {
                    continue
                }
                // Transitions lengthen an item's sound into their span and fade it there.
                let reach = track.reach(ofItem: index)
                let item = original.extended(before: reach.before, after: reach.after)
                let first = (item.at * rate).rounded
                let fades = track.transitions.compactMap { transition -> VolumeEnvelope.Fade? in
                    guard transition.incoming == index || transition.outgoing == index else { return nil }
                    let start = (transition.start * rate).rounded
                    return VolumeEnvelope.Fade(
                        start: start - first, length: (transition.end * rate).rounded - start,
                        rising: transition.incoming == index, curve: transition.audio)
                }
                voices.append(
                    Voice(
                        key: voices.count, item: item,
                        envelope: VolumeEnvelope(item.volume, sampleRate: layout.sampleRate, fades: fades),
                        path: asset.path, first: first, end: (item.end * rate).rounded))
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
