import FarmCore
import FarmMedia

/// Mixes every sounding item of a timeline into one sample-exact stream.
///
/// Sound comes from audio-track items and from video-track items whose media has sound (unless
/// `muted`). An item covers timeline samples `[round(at * rate), round(end * rate))`; its volume
/// (constant or keyframed) is evaluated at every sample (`VolumeEnvelope`), and so is its `pan`
/// (`PanBalance`). Sound is mixed in audio blocks that depend on the project alone
/// (`AudioBlocks`), never per video chunk.
public final class AudioMixer {
    private struct Voice {
        var key: Int
        var item: Item
        var envelope: VolumeEnvelope
        var path: String
        var first: Int64
        var end: Int64
        /// Plays its media range backwards.
        var reversed = false
        var balance: PanBalance?
    }

    private let layout: AudioLayout
    private let reads: MediaReads?
    private let voices: [Voice]
    private var readers: [Int: (reader: AudioReader, position: Int64)] = [:]
    private var stretchers: [Int: PitchPreservingReader] = [:]
    private let block: SampleBlock
    /// Where a backwards voice's samples are read forwards before being added in reverse.
    private let backwards: SampleBlock
    /// Where a panned voice is read before being added to each side.
    private let panned: SampleBlock
    /// Per-sample gains and pans of the voice being mixed; reused, so mixing allocates nothing
    /// per block.
    private var gains: [Float] = []
    private var pans: [Float] = []

    public init(loaded: LoadedProject, blockCapacity: Int = 4096) {
        let project = loaded.project
        reads = loaded.reads
        layout = project.output.audio
        let (sampleRate, channels) = (layout.sampleRate, layout.channels)
        let rate = Rational(Int64(sampleRate))
        var voices: [Voice] = []
        for track in project.tracks {
            let reaches = track.reaches
            for (index, original) in track.items.enumerated() where !original.muted {
                guard let id = original.asset, let info = loaded.media[id], info.hasAudio,
                    let asset = project.assets[id]
                else {
                    continue
                }
                // Transitions lengthen an item's sound into their span and fade it there.
                let reach = reaches[index]
                for (item, reversed) in Self.pieces(of: original.extended(before: reach.before, after: reach.after)) {
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
                            path: asset.path, first: first, end: (item.end * rate).rounded, reversed: reversed,
                            balance: item.pan.map { PanBalance($0, sampleRate: sampleRate, channels: channels) }))
                }
            }
        }
        self.voices = voices
        block = SampleBlock(channels: layout.channels, capacity: blockCapacity)
        backwards = SampleBlock(channels: layout.channels, capacity: blockCapacity)
        panned = SampleBlock(channels: layout.channels, capacity: blockCapacity)
    }

    /// An item's sound as constant-speed pieces: itself, or one piece per straight segment of
    /// its time map. Frozen and near-frozen segments (under 1/100 of normal speed) are silent;
    /// falling ones play their media range backwards.
    static func pieces(of item: Item) -> [(item: Item, reversed: Bool)] {
        guard let timeMap = item.timeMap else { return [(item, false)] }
        return timeMap.segments(duration: item.duration).compactMap { segment in
            let length = segment.end - segment.start
            let media = segment.to < segment.from ? segment.from - segment.to : segment.to - segment.from
            guard !(media / length < ProjectLoader.slowestSoundSpeed) else { return nil }
            var piece = item
            piece.timeMap = nil
            piece.at = item.at + segment.start
            piece.duration = length
            piece.sourceStart = Rational.min(segment.from, segment.to)
            piece.sourceDuration = media
            piece.volume = item.volume.shifted(by: .zero - segment.start)
            piece.pan = item.pan?.shifted(by: .zero - segment.start)
            return (piece, segment.to < segment.from)
        }
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
            guard let balance = voice.balance else {
                try add(voice, local: local, count: Int(to - from), into: block, at: Int(from - start))
                continue
            }
            // A panned voice is read on its own, then added to each side by its balance.
            panned.clear(count: Int(to - from))
            try add(voice, local: local, count: Int(to - from), into: panned, at: 0)
            balance.add(panned, count: Int(to - from), into: block, at: Int(from - start), first: local, values: &pans)
        }
        return block
    }

    /// Adds item-local samples `local ..< local + count` of `voice`, at its volume, into
    /// `target` from its sample `offset`.
    private func add(_ voice: Voice, local: Int64, count: Int, into target: SampleBlock, at offset: Int) throws {
        if voice.reversed {
            return try mixBackwards(voice, local: local, count: count, into: target, at: offset)
        }
        if voice.item.preservesPitch && voice.item.speed != Rational(1) {
            let stretcher =
                stretchers[voice.key]
                ?? PitchPreservingReader(path: voice.path, item: voice.item, layout: layout, reads: reads)
            stretchers[voice.key] = stretcher
            let gain = voice.envelope.gains(from: local, count: count, into: &gains)
            try stretcher.add(from: local, count: count, into: target, at: offset, gain: gain)
            if voice.first + local + Int64(count) == voice.end { stretchers[voice.key] = nil }
            return
        }
        var entry = readers[voice.key]
        if entry == nil || entry!.position != local {
            entry = (
                try AudioReader(path: voice.path, item: voice.item, layout: layout, offset: local, reads: reads),
                local
            )
        }
        let gain = voice.envelope.gains(from: local, count: count, into: &gains)
        try entry!.reader.read(count: count, into: target, at: offset, gain: gain)
        entry!.position = local + Int64(count)
        readers[voice.key] = voice.first + entry!.position == voice.end ? nil : entry
    }

    /// Adds item-local samples `local ..< local + count` of a backwards voice at `offset` in
    /// `target`: the mirrored range read forwards by a fresh reader, then added last sample first.
    private func mixBackwards(
        _ voice: Voice, local: Int64, count: Int, into target: SampleBlock, at offset: Int
    ) throws {
        let length = voice.end - voice.first
        let reader = try AudioReader(
            path: voice.path, item: voice.item, layout: layout, offset: length - local - Int64(count), reads: reads)
        backwards.clear(count: count)
        try reader.read(count: count, into: backwards, at: 0, gain: .constant(1))
        let gain = voice.envelope.gains(from: local, count: count, into: &gains)
        for channel in 0..<layout.channels {
            for i in 0..<count {
                let factor: Float
                switch gain {
                case .constant(let value): factor = value
                case .perSample(let factors): factor = factors[i]
                }
                target[channel, offset + i] += backwards[channel, count - 1 - i] * factor
            }
        }
    }
}
