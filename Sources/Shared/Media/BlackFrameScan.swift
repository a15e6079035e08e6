import CFFmpeg
import FarmCore

/// Decodes a file's video and says, frame by frame, whether it is black by the rule of
/// ffmpeg's `blackdetect` (its defaults): a sample is black at or under 10 % of the luma range
/// above black (16 + 0.1 × 219 in 8-bit limited range, scaled for more bits, 0.1 × full scale
/// for full range), and a frame is black when 98 % of its samples are.
public enum BlackFrameScan {
    public static let pixelThreshold = 0.10
    public static let pictureThreshold = 0.98

    /// One flag per decoded frame, in presentation order as the decoder gives them.
    public static func blackFrames(path: String, threads: Int = 0) throws -> [Bool] {
        let input = try MediaInput(path: path, stream: .video, threads: threads)
        let frame = Frame()
        var flags: [Bool] = []
        while try input.decodeNext(into: frame) {
            flags.append(isBlack(frame.pointer))
            av_frame_unref(frame.pointer)
        }
        return flags
    }

    /// The brightest sample that still counts as black: 10 % of the luma range above black.
    static func darkestSample(depth: Int, fullRange: Bool) -> Int {
        let limit =
            fullRange
            ? pixelThreshold * Double((1 << depth) - 1)
            : (16 + pixelThreshold * (235 - 16)) * Double(1 << (depth - 8))
        // Samples are whole numbers: compared with the limit's whole part, once converted.
        return Int(limit.rounded(.down))
    }

    static func isBlack(_ frame: UnsafeMutablePointer<AVFrame>) -> Bool {
        let width = Int(frame.pointee.width)
        let height = Int(frame.pointee.height)
        guard width > 0, height > 0, let plane = frame.pointee.data.0,
            let descriptor = av_pix_fmt_desc_get(AVPixelFormat(rawValue: frame.pointee.format))
        else { return false }
        let depth = Int(descriptor.pointee.comp.0.depth)
        let darkest = darkestSample(depth: depth, fullRange: frame.pointee.color_range == AVCOL_RANGE_JPEG)
        let stride = Int(frame.pointee.linesize.0)
        var black = 0
        for y in 0..<height {
            let row = plane + y * stride
            if depth > 8 {
                row.withMemoryRebound(to: UInt16.self, capacity: width) { samples in
                    for x in 0..<width where Int(samples[x]) <= darkest { black += 1 }
                }
            } else {
                for x in 0..<width where Int(row[x]) <= darkest { black += 1 }
            }
        }
        return Double(black) >= pictureThreshold * Double(width * height)
    }
}

extension BlackFrameScan {
    /// Whether a composited picture (the canvas, limited range) is black by `blackdetect`'s
    /// rule: what a worker measures of each frame it encodes, so the QC need not decode the
    /// joined output again. Stops reading once too many samples are lit to be black.
    public static func isBlack(_ picture: Picture) -> Bool {
        let darkest = darkestSample(depth: picture.depth, fullRange: false)
        let total = picture.width * picture.height
        let allowedLit = total - Int((pictureThreshold * Double(total)).rounded(.up))
        var lit = 0
        let stride = Int(picture.strides[0])
        let width = picture.width
        for y in 0..<picture.height {
            let row = picture.planes[0]! + y * stride
            // Branch-free sums, which the compiler turns into vector compares.
            if picture.depth > 8 {
                let limit = UInt16(darkest)
                row.withMemoryRebound(to: UInt16.self, capacity: width) { samples in
                    var count = 0
                    for x in 0..<width { count &+= samples[x] > limit ? 1 : 0 }
                    lit += count
                }
            } else {
                let limit = UInt8(darkest)
                var count = 0
                for x in 0..<width { count &+= row[x] > limit ? 1 : 0 }
                lit += count
            }
            if lit > allowedLit { return false }
        }
        return true
    }
}
