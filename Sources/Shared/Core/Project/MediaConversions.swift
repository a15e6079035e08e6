/// What the render changes in an asset on its way to the output, said once per asset by
/// `farm validate`: nothing here is an error, but each can surprise someone who did not expect it.
public enum MediaConversions {
    /// One line per conversion `info` undergoes for `output`, empty when it goes through as it is.
    public static func notes(_ info: MediaInfo, output: OutputSettings) -> [String] {
        var notes: [String] = []
        if info.kind != .audio {
            switch info.transfer {
            case "smpte2084", "arib-std-b67":
                let name = info.transfer == "smpte2084" ? "PQ (HDR10)" : "HLG"
                notes.append("\(name) HDR pictures are tone-mapped to SDR BT.709 (docs/media.md)")
            default:
                break
            }
            if info.bitDepth > 8 { notes.append("\(info.bitDepth)-bit pictures are composited in 8 bits") }
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

    /// How libswresample's standard matrix maps `channels` onto an output of `output` channels:
    /// mono spreads over stereo, but in 5.1 plays from the centre alone, and stereo from the front
    /// pair alone (as `ffmpeg -ac 6` places them).
    static func channelNote(_ channels: Int, output: Int) -> String? {
        if channels > output { return "\(channels)-channel sound is mixed down to \(output) channels" }
        guard channels > 0, channels < output else { return nil }
        switch (channels, output) {
        case (1, 6): return "1-channel sound plays from the centre channel of 5.1"
        case (2, 6): return "2-channel sound plays from the front left and right channels of 5.1"
        default: return "\(channels)-channel sound is spread over \(output) channels"
        }
    }
}
