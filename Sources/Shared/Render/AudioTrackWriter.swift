import CFFmpeg

/// Pulls mixed timeline samples from an `AudioMixer` and feeds them to an audio encoder in the
/// encoder's frame size, with timestamps counted in samples from the file's start.
final class AudioTrackWriter {
    private let encoder: MediaEncoder
    private let stream: Int32
    private let mixer: AudioMixer
    private let frame = Frame()
    private let frameSize: Int
    private let start: Int64
    /// The next timeline sample to encode.
    private var next: Int64

    init(encoder: MediaEncoder, stream: Int32, mixer: AudioMixer, start: Int64) throws {
        self.encoder = encoder
        self.stream = stream
        self.mixer = mixer
        self.start = start
        next = start
        frameSize = encoder.audioFrameSize
        frame.pointer.pointee.format = encoder.context.pointee.sample_fmt.rawValue
        frame.pointer.pointee.nb_samples = Int32(frameSize)
        frame.pointer.pointee.sample_rate = encoder.context.pointee.sample_rate
        try FFmpegError.check(av_channel_layout_copy(&frame.pointer.pointee.ch_layout, &encoder.context.pointee.ch_layout), "audio layout")
        try FFmpegError.check(av_frame_get_buffer(frame.pointer, 0), "allocate audio frame")
    }

    /// Encodes whole encoder frames up to timeline sample `end`; with `final`, the last partial one too.
    func encode(upTo end: Int64, muxer: Muxer, final: Bool) throws {
        while next < end {
            let count = Int(min(Int64(frameSize), end - next))
            if count < frameSize && !final { return }
            let mixed = try mixer.mix(from: next, count: count)
            try FFmpegError.check(av_frame_make_writable(frame.pointer), "audio frame buffer")
            frame.pointer.pointee.nb_samples = Int32(count)
            fill(frame.pointer, from: mixed, count: count)
            frame.pointer.pointee.pts = next - start
            try encoder.encode(frame.pointer) { packet in try muxer.write(packet, stream: stream, from: encoder.timeBase) }
            next += Int64(count)
        }
    }

    func drain(muxer: Muxer) throws {
        try encoder.encode(nil) { packet in try muxer.write(packet, stream: stream, from: encoder.timeBase) }
    }

    private func fill(_ frame: UnsafeMutablePointer<AVFrame>, from mixed: [UnsafeMutablePointer<Float>], count: Int) {
        if AVSampleFormat(frame.pointee.format) == AV_SAMPLE_FMT_FLTP {
            for (channel, samples) in mixed.enumerated() {
                frame.pointee.extended_data[channel]!.withMemoryRebound(to: Float.self, capacity: count) {
                    $0.update(from: samples, count: count)
                }
            }
            return
        }
        // Interleaved signed 16-bit (PCM): clamp, then round to nearest.
        let channels = mixed.count
        frame.pointee.data.0!.withMemoryRebound(to: Int16.self, capacity: count * channels) { target in
            for i in 0..<count {
                for channel in 0..<channels {
                    let value = max(-1, min(1, mixed[channel][i])) * 32767
                    target[i * channels + channel] = Int16(value.rounded())
                }
            }
        }
    }
}
