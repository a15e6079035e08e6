import CFFmpeg
import FarmCore

/// Converts and scales a region of a source image into a `Picture` with libswscale.
///
/// One scaler per layer: the cached SwsContext is reused while sizes and formats stay the same.
/// Flags ask for bit-exact, accurately rounded output, so results never depend on the CPU's
/// SIMD paths or on which frames were rendered before.
public final class Scaler {
    private var context: OpaquePointer?
    private var configured: Key?
    private let sourcePlanes = UnsafeMutablePointer<UnsafePointer<UInt8>?>.allocate(capacity: 4)
    private let sourceStrides = UnsafeMutablePointer<Int32>.allocate(capacity: 4)

    private struct Key: Equatable {
        var width: Int32, height: Int32, format: Int32, targetWidth: Int32, targetHeight: Int32, targetFormat: Int32
        var matrix: Int32, fullRange: Bool
    }

    public init() {}

    static let flags = SWS_BICUBIC | SWS_ACCURATE_RND | SWS_BITEXACT

    deinit {
        sws_freeContext(context)
        sourcePlanes.deallocate()
        sourceStrides.deallocate()
    }

    /// Converts and scales `region` of `image` to fill all of `target`, at the target's depth.
    public func scale(_ image: SourceImage, region: PixelRect, into target: Picture) throws {
        let key = Key(
            width: Int32(region.width), height: Int32(region.height), format: image.format.rawValue,
            targetWidth: Int32(target.width), targetHeight: Int32(target.height),
            targetFormat: target.pixelFormat.rawValue, matrix: SourceImage.swsMatrix(image.matrix),
            fullRange: image.isFullRange)
        if key != configured {
            context = sws_getCachedContext(
                context, key.width, key.height, image.format, key.targetWidth, key.targetHeight, target.pixelFormat,
                Scaler.flags, nil, nil, nil)
            guard let context else {
                throw FFmpegError(operation: "scale", message: "unsupported conversion from \(image.format.rawValue)")
            }
            // Every source converts into the picture's limited-range YUV (BT.709 at 8 bits,
            // BT.2020 at 10): RGB and full-range YUV by range, other matrices by matrix too (as
            // ffmpeg's `scale=in_color_matrix=…:out_color_matrix=bt709`). Only the matrix: a
            // change of transfer or primaries is the ToneMapper's.
            let targetMatrix = target.depth == 10 ? SWS_CS_BT2020 : SWS_CS_ITU709
            sws_setColorspaceDetails(
                context, sws_getCoefficients(key.matrix), key.fullRange ? 1 : 0, sws_getCoefficients(targetMatrix),
                0, 0, 1 << 16, 1 << 16)
            configured = key
        }
        setSourcePlanes(image, region: region)
        let rows = sws_scale(context, sourcePlanes, sourceStrides, 0, key.height, target.planes, target.strides)
        if rows <= 0 { throw FFmpegError(code: rows, operation: "scale") }
    }

    /// Points each plane at the region's top-left sample, honouring chroma subsampling and
    /// packed formats (RGBA steps 4 bytes a pixel).
    private func setSourcePlanes(_ image: SourceImage, region: PixelRect) {
        let descriptor = av_pix_fmt_desc_get(image.format)!.pointee
        // Bytes per pixel in each plane (RGBA steps 4 in plane 0); a tuple, not an array, so
        // this per-frame path does not allocate.
        var steps = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &steps) { stepBytes in
            let stepOf = stepBytes.bindMemory(to: Int.self)
            withUnsafeBytes(of: descriptor.comp) { raw in
                let components = raw.bindMemory(to: AVComponentDescriptor.self)
                for index in 0..<Int(descriptor.nb_components) {
                    let plane = Int(components[index].plane)
                    stepOf[plane] = Swift.max(stepOf[plane], Int(components[index].step))
                }
            }
        }
        for plane in 0..<4 {
            let base: UnsafeMutablePointer<UInt8>?
            let stride: Int32
            let step: Int
            switch plane {
            case 0: (base, stride, step) = (image.data.0, image.strides.0, steps.0)
            case 1: (base, stride, step) = (image.data.1, image.strides.1, steps.1)
            case 2: (base, stride, step) = (image.data.2, image.strides.2, steps.2)
            default: (base, stride, step) = (image.data.3, image.strides.3, steps.3)
            }
            sourceStrides[plane] = stride
            guard let base else {
                sourcePlanes[plane] = nil
                continue
            }
            let isChroma = plane == 1 || plane == 2
            let x = isChroma ? region.x >> Int(descriptor.log2_chroma_w) : region.x
            let y = isChroma ? region.y >> Int(descriptor.log2_chroma_h) : region.y
            sourcePlanes[plane] = UnsafePointer(base + y * Int(stride) + x * step)
        }
    }
}
