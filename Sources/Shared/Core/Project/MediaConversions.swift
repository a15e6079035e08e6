/// What the render changes in an asset on its way to the output, said once per asset by
/// `farm validate`: nothing here is an error, but each can surprise someone who did not expect it.
public enum MediaConversions {
    /// One line per conversion `info` undergoes for `output`, empty when it goes through as it is.
    public static func notes(_ info: MediaInfo, output: OutputSettings) -> [String] {
        var notes: [String] = []
        if info.kind != .audio {
            let range = DynamicRange(transferName: info.transfer)
            let canvas = output.dynamicRange
            func name(_ range: DynamicRange) -> String {
                switch range {
                case .sdr: "SDR"
                case .pq: "PQ (HDR10)"
                case .hlg: "HLG"
                }
            }
            switch (range, canvas) {
            case (.sdr, .sdr): break
            case (_, .sdr): notes.append("\(name(range)) HDR pictures are tone-mapped to SDR BT.709 (docs/media.md)")
            case (.sdr, _):
                notes.append(
                    "SDR pictures are placed in \(name(canvas)) BT.2020 with their white at 203 nits (docs/media.md)")
            default:
                if range != canvas {
                    notes.append("\(name(range)) pictures are converted to \(name(canvas)) (docs/media.md)")
                }
            }
            if SourcePrimaries(name: info.primaries, range: range) == .p3D65 {
                notes.append("P3-D65 pictures are converted from their own primaries (docs/media.md)")
            }
            if info.bitDepth > canvas.depth {
                notes.append("\(info.bitDepth)-bit pictures are composited in \(canvas.depth) bits")
            }
            if info.interlaced { notes.append("interlaced pictures are read as whole frames, not deinterlaced") }
            if info.pixelAspect != Rational(1) {
                notes.append(
                    "anamorphic pixels (\(info.pixelAspect.numerator):\(info.pixelAspect.denominator)) are widened or "
                        + "narrowed to their displayed shape")
            }
        }
        if info.hasAudio, let note = channelNote(info.channels, output: output.audio.channels) { notes.append(note) }
        return notes
    }

    /// The channel counts FFmpeg 5.1 has a default layout for (`av_channel_layout_default`):
    /// sound of another count with no layout of its own has no standard matrix (`AudioReader`).
    static let positionedCounts: Set<Int> = [1, 2, 3, 4, 5, 6, 7, 8, 16, 24]

    /// How libswresample's standard matrix maps `channels` onto an output of `output` channels:
    /// mono spreads over stereo, but in 5.1 plays from the centre alone, and stereo from the front
    /// pair alone (as `ffmpeg -ac 6` places them).
    static func channelNote(_ channels: Int, output: Int) -> String? {
        if channels > 1, !positionedCounts.contains(channels) {
            return "\(channels)-channel sound names no channel positions: its channels are summed to mono, "
                + "each at 1/\(channels), and play as mono"
        }
        if channels > output { return "\(channels)-channel sound is mixed down to \(output) channels" }
        guard channels > 0, channels < output else { return nil }
        switch (channels, output) {
        // Mono on both sides of stereo is what anyone expects: nothing to say.
        case (1, 2): return nil
        case (1, 6): return "1-channel sound plays from the centre channel of 5.1"
        case (2, 6): return "2-channel sound plays from the front left and right channels of 5.1"
        default: return "\(channels)-channel sound is spread over \(output) channels"
        }
    }
}
