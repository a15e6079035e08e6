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
        if info.hasAudio, info.channels > output.audio.channels {
            notes.append("\(info.channels)-channel sound is mixed down to \(output.audio.channels) channels")
        } else if info.hasAudio, info.channels > 0, info.channels < output.audio.channels {
            notes.append("\(info.channels)-channel sound is spread over \(output.audio.channels) channels")
        }
        return notes
    }
}
