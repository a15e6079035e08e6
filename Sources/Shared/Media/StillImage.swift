import CFFmpeg
import FarmCore

/// Decodes a still picture once, upright, and keeps it in its own pixel format: the layer's
/// scaler then converts and scales it in one step, as ffmpeg's graph does for a decoded photo
/// (autorotated by transpose and flips that move samples, then one `scale`).
public enum StillImage {
    public static func load(path: String, info: MediaInfo, reads: MediaReads? = nil) throws -> StillPicture {
        let input = try MediaInput(path: path, stream: .video, reads: reads)
        let frame = Frame()
        guard try input.decodeNext(into: frame) else {
            throw FFmpegError(operation: path, message: "no picture could be decoded")
        }
        if info.rotation == 0 && !info.mirrored { return StillPicture(frame: frame) }
        if let turned = StillRotation.rotated(frame.pointer, clockwise: info.rotation, mirrored: info.mirrored) {
            return StillPicture(frame: turned)
        }
        // A palette or bitstream format: converted first, then turned.
        return StillPicture(
            picture: try Upright(rotation: info.rotation).picture(from: SourceImage(frame: frame.pointer)))
    }
}

/// A decoded still, kept for as long as its item shows.
public final class StillPicture {
    private let frame: Frame?
    private let picture: Picture?

    init(frame: Frame) {
        self.frame = frame
        picture = nil
    }

    init(picture: Picture) {
        frame = nil
        self.picture = picture
    }

    /// The picture, valid while this object lives.
    public var image: SourceImage {
        if let frame { return SourceImage(frame: frame.pointer) }
        return SourceImage(picture: picture!)
    }
}

/// Converts decoded pictures to the working format and applies their rotation metadata.
///
/// Keeps its two buffers between calls, so a rotated video source costs no allocation per frame;
/// the returned picture is overwritten by the next call.
public final class Upright {
    private let rotation: Int
    private let scaler: Scaler
    /// The depth of the canvas the pictures are for: 8 or 10 bits.
    private let depth: Int
    private var converted: Picture?
    private var rotated: Picture?

    public init(rotation: Int, depth: Int = 8, scaler: Scaler = Scaler()) {
        self.rotation = rotation
        self.depth = depth
        self.scaler = scaler
    }

    public func picture(from image: SourceImage) throws -> Picture {
        // Odd sizes lose their last row or column: 4:2:0 needs even sizes.
        let width = Swift.max(2, image.width & ~1)
        let height = Swift.max(2, image.height & ~1)
        let converted = reuse(self.converted, width: width, height: height, hasAlpha: image.hasAlpha)
        self.converted = converted
        try scaler.scale(image, region: PixelRect(x: 0, y: 0, width: width, height: height), into: converted)
        guard rotation != 0 else { return converted }
        let turned = rotation == 180 ? (width, height) : (height, width)
        let rotated = reuse(self.rotated, width: turned.0, height: turned.1, hasAlpha: image.hasAlpha)
        self.rotated = rotated
        Self.rotate(converted, into: rotated, clockwise: rotation)
        return rotated
    }

    private func reuse(_ picture: Picture?, width: Int, height: Int, hasAlpha: Bool) -> Picture {
        if let picture, picture.width == width, picture.height == height, picture.hasAlpha == hasAlpha {
            return picture
        }
        return Picture(width: width, height: height, hasAlpha: hasAlpha, depth: depth)
    }

    /// Rotates each plane by 90, 180 or 270 degrees clockwise.
    static func rotate(_ source: Picture, into target: Picture, clockwise degrees: Int) {
        if source.depth == 8 {
            rotate(source, into: target, clockwise: degrees, as: UInt8.self)
        } else {
            rotate(source, into: target, clockwise: degrees, as: UInt16.self)
        }
    }

    private static func rotate<Sample: PlaneSample>(
        _ source: Picture, into target: Picture, clockwise degrees: Int, as _: Sample.Type
    ) {
        let size = MemoryLayout<Sample>.size
        for plane in 0..<(source.hasAlpha ? 4 : 3) {
            let isChroma = plane == 1 || plane == 2
            let width = isChroma ? source.width / 2 : source.width
            let height = isChroma ? source.height / 2 : source.height
            let from = UnsafeMutableRawPointer(source.planes[plane]!).assumingMemoryBound(to: Sample.self)
            let to = UnsafeMutableRawPointer(target.planes[plane]!).assumingMemoryBound(to: Sample.self)
            let fromStride = Int(source.strides[plane]) / size
            let toStride = Int(target.strides[plane]) / size
            for y in 0..<height {
                for x in 0..<width {
                    let value = from[y * fromStride + x]
                    switch degrees {
                    case 90: to[x * toStride + (height - 1 - y)] = value
                    case 180: to[(height - 1 - y) * toStride + (width - 1 - x)] = value
                    default: to[(width - 1 - x) * toStride + y] = value
                    }
                }
            }
        }
    }
}
