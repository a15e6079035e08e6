import FarmCore
import FarmMedia

/// Pulls mixed timeline samples from an `AudioMixer` and feeds them to an audio encoder in the
/// encoder's frame size, with timestamps counted in samples from the file's start.
final class AudioTrackWriter {
    private let encoder: MediaEncoder
    private let stream: Int
    private let mixer: AudioMixer
    private let frameSize: Int
    private let start: Int64
    /// The next timeline sample to encode.
    private var next: Int64

    init(encoder: MediaEncoder, stream: Int, mixer: AudioMixer, start: Int64) {
        self.encoder = encoder
        self.stream = stream
        self.mixer = mixer
        self.start = start
        next = start
        frameSize = encoder.audioFrameSize
    }

    /// Encodes whole encoder frames up to timeline sample `end`; with `final`, the last partial one too.
    func encode(upTo end: Int64, muxer: Muxer, final: Bool) throws {
        while next < end {
            let count = Int(min(Int64(frameSize), end - next))
            if count < frameSize && !final { return }
            let mixed = try mixer.mix(from: next, count: count)
            try encoder.encode(mixed, count: count, pts: next - start) { packet in
                try muxer.write(packet, stream: stream, from: encoder.timeBase)
            }
            next += Int64(count)
        }
    }

    func drain(muxer: Muxer) throws {
        try encoder.drain { packet in try muxer.write(packet, stream: stream, from: encoder.timeBase) }
    }
}
