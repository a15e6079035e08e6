import CFFmpeg
import FarmCore

/// Reads one item's sound as float samples at the output layout, in timeline samples.
///
/// Speed changes play the media faster or slower like tape (pitch follows speed): the media is
/// resampled to `outputRate / speed`, and each resampled sample fills one timeline sample.
/// Position is exact: the first decoded frame's timestamp says which resampled sample it is, and
/// samples before the wanted start are dropped (or silence is added when the media starts later).
public final class AudioReader {
    private let input: MediaInput
    private var resampler: OpaquePointer?
    private let channels: Int
    private let frame = Frame()
    /// Resampled samples not yet handed out, one array per channel.
    private var pending: [[Float]]
    private var pendingStart = 0
    /// Samples still to drop (positive) or silence still to emit (negative) before the wanted start.
    private var skip: Int
    private var finished = false
    private var flushed = false
    private var primed = false
    /// Decoded input samples still to drop so that resampling starts on its phase grid.
    private var inputToSkip: Int64 = 0
    private let phase: ResamplerPhase
    private let effectiveRate: Int
    private let wantedStart: Int64
    private let scratch: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>
    private var scratchCapacity = 0

    /// Decoded and dropped before a seek target: several frames of any codec.
    static let preRoll = Rational(1, 5)
    /// The same for a codec that declares a seek pre-roll (Opus, 80 ms): its decoder's state
    /// comes within 4 of 32,767 of a decode from the start after 0.2 s, within 1 after 1 s.
    static let convergingPreRoll = Rational(1)

    /// Starts reading at timeline sample `offset` into the item.
    public init(path: String, item: Item, layout: AudioLayout, offset: Int64, reads: MediaReads? = nil) throws {
        input = try MediaInput(path: path, stream: .audio, reads: reads)
        channels = layout.channels
        pending = Array(repeating: [], count: layout.channels)
        scratch = .allocate(capacity: layout.channels)
        for channel in 0..<layout.channels { scratch[channel] = nil }
        effectiveRate = Int(max(1, (Rational(Int64(layout.sampleRate)) / item.speed).rounded))
        wantedStart = (item.sourceStart * Rational(Int64(effectiveRate))).rounded + offset
        skip = 0
        let decoder = input.decoder
        phase = ResamplerPhase(inputRate: Int64(decoder.pointee.sample_rate), outputRate: Int64(effectiveRate))
        var outLayout = AVChannelLayout()
        av_channel_layout_default(&outLayout, Int32(layout.channels))
        defer { av_channel_layout_uninit(&outLayout) }
        var inLayout = AVChannelLayout()
        if decoder.pointee.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC {
            av_channel_layout_default(&inLayout, decoder.pointee.ch_layout.nb_channels)
        } else {
            av_channel_layout_copy(&inLayout, &decoder.pointee.ch_layout)
        }
        defer { av_channel_layout_uninit(&inLayout) }
        try FFmpegError.check(
            swr_alloc_set_opts2(
                &resampler, &outLayout, AV_SAMPLE_FMT_FLTP, Int32(effectiveRate), &inLayout, decoder.pointee.sample_fmt,
                decoder.pointee.sample_rate, 0, nil), "resampler for \(path)")
        // Down-mixes (5.1 to stereo) by the standard matrix, scaled so no output sample can pass
        // full scale: what libswresample does by default for integer output, and so what
        // `ffmpeg -ac 2` gives. Float output would otherwise keep the matrix's full gain and clip.
        try FFmpegError.check(
            av_opt_set_double(resampler.map { UnsafeMutableRawPointer($0) }, "rematrix_maxval", 1, 0),
            "resampler for \(path)")
        if inLayout.order == AV_CHANNEL_ORDER_UNSPEC {
            // No layout for this count (9 to 15 channels, say): libswresample has no matrix.
            let matrix = try Self.monoSumMatrix(channels: Int(inLayout.nb_channels), into: &outLayout, path: path)
            try FFmpegError.check(
                swr_set_matrix(resampler, matrix, Int32(inLayout.nb_channels)), "resampler for \(path)")
        }
        try FFmpegError.check(swr_init(resampler), "resampler for \(path)")
        // A decoder that starts at the seek point gets its first frames wrong (an AAC frame needs
        // the one before it), so decoding starts a little earlier and the samples before the
        // wanted start are dropped: the sound after a cut equals a full decode's.
        let converges = input.stream.pointee.codecpar.pointee.seek_preroll > 0
        // And up to a cycle of the resampler's phases more, skipped to start on one (`ResamplerPhase`).
        let cycle = phase.period > 1 ? Rational(phase.period, Int64(max(1, decoder.pointee.sample_rate))) : .zero
        let seekTime =
            Rational(wantedStart, Int64(effectiveRate)) - (converges ? Self.convergingPreRoll : Self.preRoll) - cycle
        if seekTime > .zero {
            try input.seek(toTimestamp: (seekTime / input.timeBase).floor + input.startTimestamp)
        }
    }

    /// The matrix for sound whose channels name no positions: every channel at 1/`channels`
    /// summed to mono, placed as mono is (both sides of stereo at -3 dB, the centre of 5.1).
    /// Equal shares never clip and assume nothing of which channel is where.
    static func monoSumMatrix(channels: Int, into output: inout AVChannelLayout, path: String) throws -> [Double] {
        var mono = AVChannelLayout()
        av_channel_layout_default(&mono, 1)
        defer { av_channel_layout_uninit(&mono) }
        let outputs = Int(output.nb_channels)
        var placement = [Double](repeating: 0, count: outputs)
        try FFmpegError.check(
            swr_build_matrix2(
                &mono, &output, M_SQRT1_2, M_SQRT1_2, 0, 1, 1, &placement, 1, AV_MATRIX_ENCODING_NONE, nil),
            "resampler for \(path)")
        // Row `out` weighs every input channel equally.
        return placement.flatMap { gain in [Double](repeating: gain / Double(channels), count: channels) }
    }

    deinit {
        swr_free(&resampler)
        for channel in 0..<channels { scratch[channel].map { UnsafeMutableRawPointer($0).deallocate() } }
        scratch.deallocate()
    }

    /// How loud the samples of one read are.
    public enum Gain {
        case constant(Float)
        /// One factor per sample read, from index 0.
        case perSample([Float])
    }

    /// Adds the next `count` samples times `gain` into `block` from its sample `mixOffset`.
    public func read(count: Int, into block: SampleBlock, at mixOffset: Int, gain: Gain) throws {
        let mix = block.buffers
        var produced = 0
        while produced < count {
            if skip < 0 {
                // Media starts after the wanted position: those samples are silence.
                let silent = min(-skip, count - produced)
                skip += silent
                produced += silent
                continue
            }
            if pending[0].count - pendingStart == 0 {
                if !(try refill()) { break }
                continue
            }
            let available = min(pending[0].count - pendingStart, count - produced)
            for channel in 0..<channels {
                let target = mix[channel] + mixOffset + produced
                pending[channel].withUnsafeBufferPointer { source in
                    switch gain {
                    case .constant(let factor):
                        for i in 0..<available { target[i] += source[pendingStart + i] * factor }
                    case .perSample(let factors):
                        factors.withUnsafeBufferPointer { factors in
                            for i in 0..<available { target[i] += source[pendingStart + i] * factors[produced + i] }
                        }
                    }
                }
            }
            pendingStart += available
            produced += available
        }
    }

    /// Media time of the stream's first decoded sample: where `framePlace` puts the first frame
    /// of a decode from the start.
    private var firstSample: Rational {
        let first = input.stream.pointee.start_time
        guard first != cffmpeg_nopts(), input.decoder.pointee.sample_rate > 0 else { return .zero }
        let skip = Int64(max(0, input.stream.pointee.codecpar.pointee.initial_padding))
        let skipTicks = av_rescale_q(
            skip, AVRational(num: 1, den: input.decoder.pointee.sample_rate), input.stream.pointee.time_base)
        return Rational(first + skipTicks - input.startTimestamp) * input.timeBase
    }

    /// Media time of the first frame decoded after opening or seeking, stamped `timestamp`.
    /// Where the container's ticks do not fall on samples (a transport stream's 1/90000 s,
    /// Matroska's milliseconds), a stamp is off by part of a tick, so the frame is put on the
    /// grid of whole codec frames from the stream's first packet: sound after a seek then lines
    /// up to the sample with a decode from the start, and audio blocks meet without a step.
    ///
    /// A codec that drops samples at the start (Opus's pre-skip, `initial_padding`) stamps its
    /// first packet that much before sample 0, rounded to a tick (−6.5 ms is −7 in WebM), and
    /// its decoder drops them again from the first packet after every seek, moving that frame's
    /// stamp by them: the frame is placed by its packet's slot on the grid, the skip into it.
    /// The grid starts where the decoder's stamp of the stream's first frame puts it, as
    /// ffmpeg counts.
    ///
    /// Where ticks are samples and the demuxer indexes every packet (MP4, MOV), a codec of fixed
    /// frames (AAC, MP3, AC-3) is placed by its packet's count in the index: a phone's MP4
    /// (Samsung's slow motion) stamps its first AAC packet 1,245 samples long while it decodes
    /// 1,024, so every later stamp is 221 samples past the count a decode from the start
    /// reaches; by its stamp the sound after a seek would sit that much late, and an audio
    /// block from the start would meet the next with a step. Where the stamps count evenly,
    /// as nearly everywhere, the two agree.
    private func framePlace(_ timestamp: Int64, samples: Int64) -> Rational {
        let rate = Int64(input.decoder.pointee.sample_rate)
        let base = input.timeBase
        let ticksPerSample = Rational(1) / (base * Rational(rate))
        let skip = Int64(max(0, input.stream.pointee.codecpar.pointee.initial_padding))
        let grid = input.decoder.pointee.frame_size > 0 ? Int64(input.decoder.pointee.frame_size) : samples + skip
        let first = input.stream.pointee.start_time
        if ticksPerSample.denominator == 1, input.decoder.pointee.frame_size > 0,
            let counted = countedStamp(of: timestamp, frameTicks: grid * ticksPerSample.numerator)
        {
            return Rational(counted - input.startTimestamp) * base
        }
        guard ticksPerSample.denominator != 1, grid > 0, rate > 0, first != cffmpeg_nopts() else {
            return Rational(timestamp - input.startTimestamp) * base
        }
        // How far the decoder moved a stamp for the samples it dropped.
        let skipTicks = av_rescale_q(skip, AVRational(num: 1, den: Int32(rate)), input.stream.pointee.time_base)
        let packet = Rational(timestamp - skipTicks - input.startTimestamp) * base
        let origin = Rational(first + skipTicks - input.startTimestamp) * base - Rational(skip, rate)
        let frames = ((packet - origin) * Rational(rate) / Rational(grid)).rounded
        return origin + Rational(frames * grid + skip, rate)
    }

    /// The stamp the packet stamped `timestamp` has by counting: the index's first packet's
    /// stamp and `frameTicks` for each packet before it. Nil where the index holds no packet
    /// stamped so (no index, or a decoder that moved the frame's stamp).
    private func countedStamp(of timestamp: Int64, frameTicks: Int64) -> Int64? {
        let stream = input.stream
        guard avformat_index_get_entries_count(stream) > 0 else { return nil }
        let position = av_index_search_timestamp(stream, timestamp, AVSEEK_FLAG_ANY | AVSEEK_FLAG_BACKWARD)
        guard position >= 0, let entry = avformat_index_get_entry(stream, position),
            entry.pointee.timestamp == timestamp,
            let start = avformat_index_get_entry(stream, 0)
        else { return nil }
        return start.pointee.timestamp + Int64(position) * frameTicks
    }

    /// Decodes and resamples more samples into `pending`; false when the media has no more.
    private func refill() throws -> Bool {
        for channel in 0..<channels {
            pending[channel].removeAll(keepingCapacity: true)
        }
        pendingStart = 0
        while pending[0].isEmpty {
            if flushed { return false }
            if !finished, try input.decodeNext(into: frame) {
                if !primed {
                    primed = true
                    let stamp = frame.pointer.pointee.best_effort_timestamp
                    let timestamp = stamp == cffmpeg_nopts() ? input.startTimestamp : stamp
                    let seconds = framePlace(timestamp, samples: Int64(frame.pointer.pointee.nb_samples))
                    // Resampling starts on its phase grid from the stream's first sample, so
                    // its output is a decode from the start's, not a fraction of a sample off.
                    let rate = Rational(Int64(input.decoder.pointee.sample_rate))
                    inputToSkip = phase.inputToSkip(from: ((seconds - firstSample) * rate).rounded)
                    let aligned = seconds + Rational(inputToSkip) / rate
                    skip = Int(wantedStart - (aligned * Rational(Int64(effectiveRate))).rounded)
                }
                let count = Int64(frame.pointer.pointee.nb_samples)
                if inputToSkip >= count {
                    inputToSkip -= count
                    continue
                }
                if inputToSkip > 0 {
                    let from = Int(inputToSkip)
                    inputToSkip = 0
                    try append(try convert(frame.pointer.pointee, from: from))
                } else {
                    try append(
                        try convert(frame.pointer.pointee.extended_data, count: frame.pointer.pointee.nb_samples))
                }
                continue
            }
            finished = true
            // Drain what the resampler still holds.
            let tail = try convert(nil, count: 0)
            if tail == 0 { flushed = true } else { try append(tail) }
        }
        return true
    }

    /// Resamples a decoded frame's samples from its sample `from` on: the first frame after a
    /// seek, started on the resampler's phase grid.
    private func convert(_ frame: AVFrame, from: Int) throws -> Int {
        let format = AVSampleFormat(rawValue: frame.format)
        let planes = av_sample_fmt_is_planar(format) != 0 ? Int(frame.ch_layout.nb_channels) : 1
        let stride = Int(av_get_bytes_per_sample(format)) * (planes == 1 ? Int(frame.ch_layout.nb_channels) : 1)
        var starts = (0..<planes).map { frame.extended_data[$0]! + from * stride }
        return try starts.withUnsafeMutableBufferPointer { starts in
            try starts.baseAddress!.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: planes) {
                try convert($0, count: frame.nb_samples - Int32(from))
            }
        }
    }

    private func convert(_ data: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?, count: Int32) throws -> Int {
        let capacity = Int(swr_get_out_samples(resampler, count)) + 32
        if capacity > scratchCapacity {
            for channel in 0..<channels {
                scratch[channel].map { UnsafeMutableRawPointer($0).deallocate() }
                scratch[channel] = UnsafeMutableRawPointer.allocate(byteCount: capacity * 4, alignment: 64)
                    .assumingMemoryBound(to: UInt8.self)
            }
            scratchCapacity = capacity
        }
        let produced: Int32
        if let data {
            produced = data.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 1) { input in
                swr_convert(resampler, scratch, Int32(scratchCapacity), input, count)
            }
        } else {
            produced = swr_convert(resampler, scratch, Int32(scratchCapacity), nil, 0)
        }
        return Int(try FFmpegError.check(produced, "resample \(input.path)"))
    }

    /// Moves `count` converted samples into `pending`, first dropping any still to be skipped.
    private func append(_ count: Int) throws {
        let dropped = max(0, min(skip, count))
        skip -= dropped
        for channel in 0..<channels {
            scratch[channel]!.withMemoryRebound(to: Float.self, capacity: count) { samples in
                pending[channel].append(
                    contentsOf: UnsafeBufferPointer(start: samples + dropped, count: count - dropped))
            }
        }
    }
}
