import CFFmpeg
import FarmCore
import Foundation

/// An open media file: its demuxer and one chosen stream's decoder.
///
/// Not thread-safe: owned by one reader at a time.
final class MediaInput {
    enum StreamKind {
        case video, audio

        var mediaType: AVMediaType { self == .video ? AVMEDIA_TYPE_VIDEO : AVMEDIA_TYPE_AUDIO }
    }

    let path: String
    private(set) var format: UnsafeMutablePointer<AVFormatContext>
    let streamIndex: Int32
    let decoder: UnsafeMutablePointer<AVCodecContext>
    private let packet = Packet()
    private var demuxerFinished = false
    /// `packet` holds the keyframe a seek found, not yet sent to the decoder.
    private var holdsPacket = false
    /// A frame came out of the decoder since the last seek.
    private var decodedSinceSeek = false
    /// The pinned file and the I/O context the demuxer reads it through, if it is pinned.
    private let pinnedIO: PinnedIO?

    /// Everything is opened into locals and the properties are set last: a throw after the
    /// properties were all set would run `deinit` too, and it would free what the `catch`
    /// below already freed.
    ///
    /// A file `reads` pins is read block by block and checked (`PinnedFile`); a change it finds
    /// is thrown as the `MediaChangedError` it is, whatever FFmpeg made of the failed read.
    convenience init(path: String, stream kind: StreamKind, threads: Int = 1, reads: MediaReads? = nil) throws {
        let pinnedIO = try PinnedIO.open(path, reads: reads)
        do {
            try self.init(path: path, stream: kind, threads: threads, io: pinnedIO)
        } catch {
            throw reads?.failure ?? error
        }
    }

    /// The demuxer of `path`, reading through `pinnedIO` if given. On failure the open frees
    /// the format context; a custom I/O context stays `pinnedIO`'s, as after a close.
    static func openFormat(path: String, io pinnedIO: PinnedIO?, failure: String) throws
        -> UnsafeMutablePointer<AVFormatContext>
    {
        var context: UnsafeMutablePointer<AVFormatContext>? = avformat_alloc_context()
        if let pinnedIO {
            context?.pointee.pb = pinnedIO.context
            context?.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        }
        try FFmpegError.check(avformat_open_input(&context, path, nil, nil), "\(failure) \(path)")
        guard let context else { throw FFmpegError(operation: "\(failure) \(path)", message: "no format context") }
        return context
    }

    private init(path: String, stream kind: StreamKind, threads: Int, io pinnedIO: PinnedIO?) throws {
        let context = try Self.openFormat(path: path, io: pinnedIO, failure: "cannot open")
        var decoder: UnsafeMutablePointer<AVCodecContext>?
        let index: Int32
        do {
            try FFmpegError.check(avformat_find_stream_info(context, nil), "cannot read stream info of \(path)")
            var codec: UnsafePointer<AVCodec>?
            index = av_find_best_stream(context, kind.mediaType, -1, -1, &codec, 0)
            if index == cffmpeg_averror_decoder_not_found() {
                throw FFmpegError(operation: "cannot decode \(path)", message: "no decoder for its \(kind) stream")
            }
            try FFmpegError.check(index, "\(path) has no \(kind) stream")
            decoder = codec.flatMap { avcodec_alloc_context3($0) }
            guard let codec, let decoder else {
                throw FFmpegError(operation: "cannot decode \(path)", message: "no decoder for its \(kind) stream")
            }
            let stream = context.pointee.streams[Int(index)]!
            try FFmpegError.check(
                avcodec_parameters_to_context(decoder, stream.pointee.codecpar), "decoder setup for \(path)")
            decoder.pointee.pkt_timebase = stream.pointee.time_base
            decoder.pointee.thread_count = Int32(threads)
            try FFmpegError.check(avcodec_open2(decoder, codec, nil), "cannot open decoder for \(path)")
            for i in 0..<Int(context.pointee.nb_streams) where i != Int(index) {
                context.pointee.streams[i]!.pointee.discard = AVDISCARD_ALL
            }
        } catch {
            avcodec_free_context(&decoder)
            var owned: UnsafeMutablePointer<AVFormatContext>? = context
            avformat_close_input(&owned)
            throw error
        }
        self.path = path
        format = context
        streamIndex = index
        self.decoder = decoder!
        self.pinnedIO = pinnedIO
    }

    deinit {
        var codec: UnsafeMutablePointer<AVCodecContext>? = decoder
        avcodec_free_context(&codec)
        var owned: UnsafeMutablePointer<AVFormatContext>? = format
        avformat_close_input(&owned)
    }

    /// As `FFmpegError.check`, but a failure that a pinned file's check caused is that check's.
    private func check(_ code: Int32, _ operation: String) throws {
        if code < 0, let failure = pinnedIO?.failure { throw failure }
        try FFmpegError.check(code, operation)
    }

    var stream: UnsafeMutablePointer<AVStream> { format.pointee.streams[Int(streamIndex)]! }
    var timeBase: Rational { Rational(stream.pointee.time_base) }

    /// Media time 0 in this stream's time base: the container's start, the earliest first
    /// timestamp of all its streams, as players and ffmpeg count. A stream that starts later
    /// (sound recorded after the picture, a transport stream's audio) keeps its offset.
    var startTimestamp: Int64 {
        let containerStart = format.pointee.start_time
        if containerStart != cffmpeg_nopts() {
            // The container's start is its earliest stream's, rounded to microseconds: rounded
            // back to the nearest tick it is that stream's own first timestamp again.
            return av_rescale_q_rnd(
                containerStart, AVRational(num: 1, den: AV_TIME_BASE), stream.pointee.time_base,
                AV_ROUND_NEAR_INF)
        }
        let start = stream.pointee.start_time
        return start == cffmpeg_nopts() ? 0 : start
    }

    /// The last seek went back to the stream's start: no earlier keyframe exists.
    private(set) var seekedFromStart = false

    /// Seeks so that decoding starts at a keyframe at or before `timestamp` (stream time base)
    /// and resets the decoder.
    ///
    /// A container's seek only comes near: transport and program streams have no index, so the
    /// demuxer's search lands on whatever packet holds a timestamp at or before the target,
    /// seldom a keyframe. So the packets after the landing are read up to the first keyframe;
    /// when that keyframe lies past the target, the seek goes again from further back (1 s,
    /// then twice as far each time), until it finds one or reaches the stream's start. The cost
    /// is the GOPs before the target, never the whole file.
    func seek(toTimestamp timestamp: Int64) throws {
        let first = stream.pointee.start_time == cffmpeg_nopts() ? startTimestamp : stream.pointee.start_time
        var request = timestamp
        var step = Swift.max(1, (Rational(1) / timeBase).floor)
        while true {
            let fromStart = request <= first
            try seekDemuxer(to: fromStart ? first : request, fromStart: fromStart)
            let keyframe = try readToKeyframe(before: fromStart ? .max : timestamp)
            if fromStart || (keyframe.map { $0 <= timestamp } ?? false) {
                seekedFromStart = fromStart
                return
            }
            request -= step
            step *= 2
        }
    }

    /// To the start of a transport or program stream by byte (a search by time can land past
    /// the first keyframe of a file without an index); otherwise by time.
    private func seekDemuxer(to timestamp: Int64, fromStart: Bool) throws {
        let unindexed = format.pointee.iformat.pointee.flags & AVFMT_TS_DISCONT != 0
        let byStart = fromStart && unindexed && av_seek_frame(format, streamIndex, 0, AVSEEK_FLAG_BYTE) >= 0
        if !byStart, seekFrame(timestamp, flags: AVSEEK_FLAG_BACKWARD) < 0 {
            // Nothing at or before the stream's start: the first keyframe after it.
            try check(seekFrame(timestamp, flags: 0), "seek in \(path)")
        }
        avcodec_flush_buffers(decoder)
        demuxerFinished = false
        holdsPacket = false
        packet.unref()
        decodedSinceSeek = false
    }

    /// Seeks by this stream, or, where its demuxer cannot (a camera's AVI whose sound has no
    /// index it can search answers EPERM even for 0), by another stream of the file, its
    /// pictures first, as `ffmpeg -ss` seeks by the file's video: the packets after the landing
    /// are this stream's from near there, and `seek(toTimestamp:)` steps back further if they
    /// start past the target. (Asked for by index: `-1` would pick this stream, the only one
    /// not discarded.)
    private func seekFrame(_ timestamp: Int64, flags: Int32) -> Int32 {
        let result = av_seek_frame(format, streamIndex, timestamp, flags)
        guard result < 0 else { return result }
        let rounding = flags & AVSEEK_FLAG_BACKWARD != 0 ? AV_ROUND_DOWN : AV_ROUND_UP
        let others = (0..<Int(format.pointee.nb_streams)).map { format.pointee.streams[$0]! }
            .filter { $0.pointee.index != streamIndex }
        let isVideo = { (other: UnsafeMutablePointer<AVStream>) in
            other.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO
        }
        for other in others.filter(isVideo) + others.filter({ !isVideo($0) }) {
            let theirs = av_rescale_q_rnd(timestamp, stream.pointee.time_base, other.pointee.time_base, rounding)
            if av_seek_frame(format, other.pointee.index, theirs, flags) >= 0 { return 0 }
        }
        return result
    }

    /// Reads this stream's packets up to its next keyframe, kept in `packet` for the decoder;
    /// returns that keyframe's timestamp. Stops early (nil) once packets decode after `limit`,
    /// since any keyframe beyond them shows later still.
    private func readToKeyframe(before limit: Int64) throws -> Int64? {
        while true {
            let result = av_read_frame(format, packet.pointer)
            if result == FFmpegError.eof {
                demuxerFinished = true
                return nil
            }
            try check(result, "read \(path)")
            let packetData = packet.pointer.pointee
            guard packetData.stream_index == streamIndex else {
                packet.unref()
                continue
            }
            let decodeTime = packetData.dts != cffmpeg_nopts() ? packetData.dts : packetData.pts
            if packetData.flags & AV_PKT_FLAG_KEY != 0 {
                holdsPacket = true
                return packetData.pts != cffmpeg_nopts() ? packetData.pts : decodeTime
            }
            packet.unref()
            if decodeTime != cffmpeg_nopts(), decodeTime > limit { return nil }
        }
    }

    /// Decodes the next frame into `frame`; false at the end of the stream.
    func decodeNext(into frame: Frame) throws -> Bool {
        while true {
            switch try CodecStep(avcodec_receive_frame(decoder, frame.pointer), "decode \(path)") {
            case .ready:
                decodedSinceSeek = true
                // DV's standard fixes its matrix (BT.601) and its decoder leaves the tag unset.
                if decoder.pointee.codec_id == AV_CODEC_ID_DVVIDEO,
                    frame.pointer.pointee.colorspace == AVCOL_SPC_UNSPECIFIED
                {
                    frame.pointer.pointee.colorspace = AVCOL_SPC_BT470BG
                }
                return true
            case .endOfStream: return false
            case .needsInput: break
            }
            if holdsPacket {
                holdsPacket = false
                defer { packet.unref() }
                try send()
                continue
            }
            if demuxerFinished {
                return false
            }
            let result = av_read_frame(format, packet.pointer)
            if result == FFmpegError.eof {
                demuxerFinished = true
                try FFmpegError.check(avcodec_send_packet(decoder, nil), "flush decoder for \(path)")
                continue
            }
            try check(result, "read \(path)")
            defer { packet.unref() }
            guard packet.pointer.pointee.stream_index == streamIndex else { continue }
            try send()
        }
    }

    private func send() throws {
        let sent = avcodec_send_packet(decoder, packet.pointer)
        // A program stream's seek can land inside a sound packet, which then fails to decode:
        // it lies in the pre-roll, before anything the reader hands out.
        if sent == cffmpeg_averror_invalid_data(), !decodedSinceSeek, decoder.pointee.codec_type == AVMEDIA_TYPE_AUDIO {
            return
        }
        // Corrupt packets are reported, not skipped: silently dropping them would change the picture.
        if sent < 0 && sent != FFmpegError.again { try FFmpegError.check(sent, "decode \(path)") }
    }
}
