import FarmCore
import FarmMedia

/// Feeds composited pictures to the video encoder, with timestamps counted in frames from the
/// file's start.
///
/// When the export `encodesPerGOP`, a fresh single-threaded encoder starts at every multiple
/// of the GOP in timeline frames, so a chunk starting on such a frame encodes exactly as the
/// same frames of a whole-timeline render.
final class VideoTrackWriter {
    private let output: OutputSettings
    private let settings: ExportSettings.Video
    private let threads: Int
    private let globalHeader: Bool
    private var encoder: MediaEncoder
    /// The timeline frame the encoder's timestamp 0 stands for: each encoder counts from its own
    /// first frame, so it sees the same timestamps wherever the file it writes into starts
    /// (libx265's decisions follow them: a GOP timed 6…11 encoded differently from one timed
    /// 0…5, so a chunk starting there differed from the whole render).
    private var encoderStart: Int64?
    let stream: Int

    init(output: OutputSettings, settings: ExportSettings.Video, threads: Int, muxer: Muxer) throws {
        self.output = output
        self.settings = settings
        self.threads = settings.encodesPerGOP ? 1 : threads
        globalHeader = muxer.needsGlobalHeader
        encoder = try MediaEncoder.video(
            output: output, settings: settings, threads: self.threads, globalHeader: globalHeader)
        stream = try muxer.addStream(for: encoder)
    }

    /// Encodes `picture` as timeline frame `n`, file frame `n - first`.
    func encode(_ picture: Picture, timelineFrame n: Int64, first: Int64, muxer: Muxer) throws {
        if settings.encodesPerGOP, n != first, n % Int64(settings.gop) == 0 {
            try drain(muxer: muxer, first: first)
            encoder = try MediaEncoder.video(
                output: output, settings: settings, threads: threads, globalHeader: globalHeader)
            encoderStart = n
        }
        let start = encoderStart ?? n
        encoderStart = start
        try encoder.encode(picture, pts: n - start) { packet in
            try write(packet, shiftedBy: start - first, muxer: muxer)
        }
    }

    /// Flushes the encoder's delayed packets.
    func drain(muxer: Muxer, first: Int64) throws {
        let shift = (encoderStart ?? first) - first
        try encoder.drain { packet in try write(packet, shiftedBy: shift, muxer: muxer) }
    }

    /// Writes an encoder's packet at its place in the file: its timestamps count frames from
    /// the encoder's first one (the time base is one frame), the file's from the file's first.
    private func write(_ packet: Packet, shiftedBy frames: Int64, muxer: Muxer) throws {
        if frames != 0 {
            packet.pts = packet.pts.map { $0 + frames }
            packet.dts = packet.dts.map { $0 + frames }
        }
        try muxer.write(packet, stream: stream, from: encoder.timeBase)
    }
}
