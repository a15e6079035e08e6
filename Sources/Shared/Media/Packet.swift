import CFFmpeg
import FarmCore

/// One encoded packet (an owned `AVPacket`), with its timestamps as Swift values.
///
/// Reused across reads: a reader fills it, the caller looks at it or hands it to a muxer, and
/// `unref()` empties it for the next one.
public final class Packet {
    let pointer: UnsafeMutablePointer<AVPacket>

    public init() {
        guard let packet = av_packet_alloc() else { fatalError("av_packet_alloc: out of memory") }
        pointer = packet
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&packet)
    }

    /// Drops the packet's data so the object can be filled again.
    public func unref() { av_packet_unref(pointer) }

    /// Presentation time in its stream's time base; nil when the packet carries none.
    public var pts: Int64? {
        get { Self.optional(pointer.pointee.pts) }
        set { pointer.pointee.pts = newValue ?? cffmpeg_nopts() }
    }

    /// Decoding time in its stream's time base; nil when the packet carries none.
    public var dts: Int64? {
        get { Self.optional(pointer.pointee.dts) }
        set { pointer.pointee.dts = newValue ?? cffmpeg_nopts() }
    }

    /// Length in its stream's time base (0 when unknown).
    public var duration: Int64 {
        get { pointer.pointee.duration }
        set { pointer.pointee.duration = newValue }
    }

    /// The packet's bytes, valid until `unref()`.
    public var bytes: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: pointer.pointee.data, count: Int(pointer.pointee.size))
    }

    /// Whether the packet starts a picture that decodes on its own.
    public var isKeyframe: Bool { pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 }

    /// Times a segment's packet on the output's frame grid, one frame long: its timestamps
    /// counted in frames (`framesPerTick`, `DemuxedStream.framesPerTick`) from `first`, never
    /// from a container's durations. False for a packet without a presentation time.
    public func placeOnFrameGrid(framesPerTick: Rational, first: Int64) -> Bool {
        guard let pts else { return false }
        let presentation = first + (Rational(pts) * framesPerTick).rounded
        dts = dts.map { first + (Rational($0) * framesPerTick).rounded } ?? presentation
        self.pts = presentation
        duration = 1
        return true
    }

    private static func optional(_ stamp: Int64) -> Int64? { stamp == cffmpeg_nopts() ? nil : stamp }
}

/// An owned `AVFrame`: decoded pictures and sound inside this module.
final class Frame {
    let pointer: UnsafeMutablePointer<AVFrame>

    init() {
        guard let frame = av_frame_alloc() else { fatalError("av_frame_alloc: out of memory") }
        pointer = frame
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&frame)
    }

    func unref() { av_frame_unref(pointer) }
}
