import FarmCore
import Foundation

/// One chunk's segment remuxed as CMAF fragments of the output's timeline: what a browser's
/// Media Source Extensions player, or an HLS player, takes for the live preview of a render
/// (`GET /api/jobs/{id}/preview.m3u8`). The packets are the segment's; only their container
/// and timestamps change.
public enum FragmentedVideo {
    /// The initialization segment (`ftyp` and `moov`) and the media segment (`moof`s and
    /// `mdat`s) of video stream `ordinal` of `segment`, whose first frame is output frame
    /// `start`. Timestamps are output frames plus `delay`, the frames an encoder with B-frames
    /// decodes ahead of its first picture (so no decode time is negative): the same in every
    /// chunk of a job, whose encoders share their settings.
    public static func fragments(of segment: URL, stream ordinal: Int = 0, start: Int64, fps: Rational, delay: Int64)
        throws -> (initialization: Data, media: Data)
    {
        let bytes = try remuxed(segment, stream: ordinal, fps: fps) { input, write in
            let toFrames = input.framesPerTick(fps: fps)
            let packet = Packet()
            while try input.read(into: packet) {
                guard packet.placeOnFrameGrid(framesPerTick: toFrames, first: start + delay) else {
                    throw FFmpegError(
                        operation: "fragment \(segment.lastPathComponent)", message: "packet without timestamp")
                }
                try write(packet)
                packet.unref()
            }
        }
        let split = firstBox("moof", in: bytes) ?? bytes.count
        return (Data(bytes.prefix(split)), Data(bytes.suffix(from: split)))
    }

    /// The initialization segment alone: the same `ftyp` and `moov` as `fragments` gives for any
    /// chunk of the job, without reading its packets.
    public static func initialization(of segment: URL, stream ordinal: Int = 0, fps: Rational) throws -> Data {
        let bytes = try remuxed(segment, stream: ordinal, fps: fps) { _, _ in }
        // The muxer's trailer adds an empty fragment index (`mfra`) after the `moov`.
        return Data(bytes.prefix(firstBox("mfra", in: bytes) ?? bytes.count))
    }

    /// The fragmented MP4 that `body` writes packets of `segment`'s stream into, as bytes.
    private static func remuxed(
        _ segment: URL, stream ordinal: Int, fps: Rational,
        _ body: (DemuxedStream, (Packet) throws -> Void) throws -> Void
    ) throws -> Data {
        let input = try DemuxedStream(path: segment.path, kind: .video, ordinal: ordinal)
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("farm-fragments-\(getpid())-\(UUID().uuidString).mp4")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let muxer = try Muxer(fragmentedPath: scratch.path)
        let frameBase = Rational(fps.denominator, fps.numerator)
        let stream = try muxer.addStream(
            copying: input, timeBase: frameBase, frameRate: fps, colour: VideoColour(writtenIn: input))
        try muxer.start()
        try body(input) { packet in try muxer.write(packet, stream: stream, from: frameBase) }
        try muxer.finish()
        return try Data(contentsOf: scratch)
    }

    /// The frames `segment`'s first packet is decoded ahead of its presentation: the `delay`
    /// that keeps every decode time of its job's fragments at zero or later.
    public static func decodeDelay(of segment: URL, stream ordinal: Int = 0, fps: Rational) throws -> Int64 {
        let input = try DemuxedStream(path: segment.path, kind: .video, ordinal: ordinal)
        let packet = Packet()
        guard try input.read(into: packet), let dts = packet.dts else { return 0 }
        return max(0, -(Rational(dts) * input.framesPerTick(fps: fps)).floor)
    }

    /// The offset of the first top-level box of `type` in an ISO BMFF file.
    static func firstBox(_ type: String, in bytes: Data) -> Int? {
        var offset = 0
        let bytes = [UInt8](bytes)
        let tag = Array(type.utf8)
        while offset + 8 <= bytes.count {
            let size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            if Array(bytes[offset + 4..<offset + 8]) == tag { return offset }
            guard size >= 8 else { return nil }
            offset += size
        }
        return nil
    }
}
