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
            try drain(muxer: muxer)
            encoder = try MediaEncoder.video(
                output: output, settings: settings, threads: threads, globalHeader: globalHeader)
        }
        try encoder.encode(picture, pts: n - first) { packet in
            try muxer.write(packet, stream: stream, from: encoder.timeBase)
        }
    }

    /// Flushes the encoder's delayed packets.
    func drain(muxer: Muxer) throws {
        try encoder.drain { packet in try muxer.write(packet, stream: stream, from: encoder.timeBase) }
    }
}
