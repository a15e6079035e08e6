import CFFmpeg

/// Turns a video's decoded pictures upright by its display matrix in their own pixel format,
/// moving samples as ffmpeg's autorotate (`transpose`) does, so the layer's scaler then converts
/// range and matrix and scales in one step, as ffmpeg's graph does. Converting at the source's
/// size first and scaling the turned result after rounded twice (a full-range phone video was 1
/// to 14 levels off).
public final class TurnedVideo {
    private let rotation: Int
    /// The last turned picture; its buffer is written again for the next.
    private var turned: Frame?

    public init(rotation: Int) {
        self.rotation = rotation
    }

    /// `image` turned, valid until the next call; nil for a format that cannot be turned as it
    /// is (bitstream or palette pixels, 4:1:1 chroma), which the caller converts first.
    public func picture(from image: SourceImage) -> SourceImage? {
        guard let view = av_frame_alloc() else { return nil }
        var owned: UnsafeMutablePointer<AVFrame>? = view
        defer { av_frame_free(&owned) }
        view.pointee.format = image.format.rawValue
        view.pointee.width = Int32(image.width)
        view.pointee.height = Int32(image.height)
        view.pointee.data.0 = image.data.0
        view.pointee.data.1 = image.data.1
        view.pointee.data.2 = image.data.2
        view.pointee.data.3 = image.data.3
        view.pointee.linesize.0 = image.strides.0
        view.pointee.linesize.1 = image.strides.1
        view.pointee.linesize.2 = image.strides.2
        view.pointee.linesize.3 = image.strides.3
        guard let frame = StillRotation.rotated(view, clockwise: rotation, reusing: turned) else { return nil }
        turned = frame
        var upright = SourceImage(frame: frame.pointer)
        // The matrix and range the reader settled on (DV's BT.601, a decoder's range tag).
        upright.matrix = image.matrix
        upright.taggedFullRange = image.taggedFullRange
        return upright
    }
}
