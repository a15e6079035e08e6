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
    /// Frames from the file's first frame to the encoder's: each encoder counts timestamps from
    /// its own first frame, so it sees the same ones wherever the file it writes into starts
    /// (libx265's decisions follow them: a GOP timed 6…11 encoded differently from one timed
    /// 0…5, so a chunk starting there differed from the whole render).
    private var encoderOffset: Int64 = 0
    let stream: Int
    /// Frames the encoder has handed back encoded: what a chunk's progress counts, since an
    /// encoder with look-ahead (x264's veryslow holds 60 frames) takes frames long before it
    /// has encoded them.
    private(set) var framesWritten: Int64 = 0

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
            try drain(muxer: muxer)
            encoder = try MediaEncoder.video(
                output: output, settings: settings, threads: threads, globalHeader: globalHeader)
            encoderOffset = n - first
        }
        try encoder.encode(picture, pts: n - first - encoderOffset) { packet in try write(packet, muxer: muxer) }
    }

    /// Flushes the encoder's delayed packets.
    func drain(muxer: Muxer) throws {
        try encoder.drain { packet in try write(packet, muxer: muxer) }
    }

    /// Writes an encoder's packet at its place in the file (the time base is one frame).
    private func write(_ packet: Packet, muxer: Muxer) throws {
        if encoderOffset != 0 {
            packet.pts = packet.pts.map { $0 + encoderOffset }
            packet.dts = packet.dts.map { $0 + encoderOffset }
        }
        try muxer.write(packet, stream: stream, from: encoder.timeBase)
        framesWritten += 1
    }
}
