import CFFmpeg
import FarmCore

/// Soft subtitles: a text stream in the output, `mov_text` in MP4 and MOV (what players there
/// read), SubRip in Matroska.
extension Muxer {
    /// Adds a subtitle stream in `language` (ISO 639-2), timed in `timeBase`; returns its index.
    public func addSubtitleStream(language: String, timeBase: Rational) throws -> Int {
        let encoder = try SubtitleEncoder(codec: container == .mkv ? "subrip" : "mov_text")
        let index = try addStream(timeBase: AVRational(timeBase), frameRate: nil) {
            avcodec_parameters_from_context($0, encoder.context)
        }
        av_dict_set(&streams[index].stream.pointee.metadata, "language", language, 0)
        subtitleEncoders[index] = encoder
        return index
    }

    /// Writes one cue to subtitle stream `index`: `text` from `start` for `duration`, both in `timeBase`.
    public func writeSubtitle(_ text: String, start: Int64, duration: Int64, stream index: Int, from timeBase: Rational)
        throws
    {
        guard let encoder = subtitleEncoders[index] else {
            throw FFmpegError(operation: "subtitles", message: "stream \(index) is no subtitle stream")
        }
        let payload = try encoder.encode(text)
        let packet = Packet()
        try FFmpegError.check(av_new_packet(packet.pointer, Int32(payload.count)), "subtitle packet")
        payload.withUnsafeBufferPointer { packet.pointer.pointee.data.update(from: $0.baseAddress!, count: $0.count) }
        packet.pts = start
        packet.dts = start
        packet.duration = duration
        packet.pointer.pointee.flags |= AV_PKT_FLAG_KEY
        try write(packet.pointer, stream: index, from: AVRational(timeBase))
    }
}
