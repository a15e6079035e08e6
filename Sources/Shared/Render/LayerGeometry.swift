import FarmCore
import FarmMedia

/// Where one layer's pixels come from and where they land, for one output frame.
///
/// Every coordinate is even, because chroma in 4:2:0 covers 2x2 pixels: a layer that started on
/// an odd pixel would need its chroma resampled by half a sample.
struct LayerGeometry: Hashable {
    /// The part of the source picture that is shown.
    var source: PixelRect
    /// Where it lands on the canvas (may reach past the canvas edges).
    var destination: PixelRect

    /// `pixelAspect` is the source's pixel width over height as displayed: `cover` and `contain`
    /// keep the displayed shape, so an anamorphic source fills as players show it.
    init?(
        sourceWidth: Int, sourceHeight: Int, canvasWidth: Int, canvasHeight: Int, crop: Rect, frame: Rect, fit: Fit,
        pixelAspect: Double = 1
    ) {
        func even(_ value: Double) -> Int { Int((value / 2).rounded()) * 2 }
        let snappedCrop = Self.snapped(crop, width: sourceWidth, height: sourceHeight)
        let cropX = Swift.min(Swift.max(snappedCrop.x, 0), sourceWidth - 2)
        let cropY = Swift.min(Swift.max(snappedCrop.y, 0), sourceHeight - 2)
        let cropW = Swift.min(Swift.max(snappedCrop.x + snappedCrop.width - cropX, 2), sourceWidth - cropX)
        let cropH = Swift.min(Swift.max(snappedCrop.y + snappedCrop.height - cropY, 2), sourceHeight - cropY)
        let rect = Self.snapped(frame, width: canvasWidth, height: canvasHeight)
        guard rect.width >= 2, rect.height >= 2, cropW >= 2, cropH >= 2 else { return nil }
        var source = PixelRect(x: cropX, y: cropY, width: cropW, height: cropH)
        var destination = rect
        // The crop's displayed width; with square pixels exactly its width, so those fits
        // compute as before.
        let displayWidth = Double(cropW) * pixelAspect
        let sourceWider = displayWidth * Double(rect.height) > Double(rect.width) * Double(cropH)
        switch fit {
        case .stretch:
            break
        case .cover:
            if sourceWider {
                let visible = Swift.max(
                    2, even(Double(cropH) * Double(rect.width) / Double(rect.height) / pixelAspect))
                source.x = cropX + even(Double(cropW - visible) / 2)
                source.width = Swift.min(visible, cropW)
            } else {
                let visible = Swift.max(2, even(displayWidth * Double(rect.height) / Double(rect.width)))
                source.y = cropY + even(Double(cropH - visible) / 2)
                source.height = Swift.min(visible, cropH)
            }
        case .contain:
            if sourceWider {
                let height = Swift.max(2, even(Double(rect.width) * Double(cropH) / displayWidth))
                destination.y = rect.y + even(Double(rect.height - height) / 2)
                destination.height = height
            } else {
                let width = Swift.max(2, even(Double(rect.height) * displayWidth / Double(cropH)))
                destination.x = rect.x + even(Double(rect.width - width) / 2)
                destination.width = width
            }
        }
        self.source = source
        self.destination = destination
    }

    /// `rect` (fractions of a `width` x `height` picture) on the even-pixel grid. Both edges snap
    /// and the size follows from them, so rectangles that touch in the project touch here
    /// (snapping the position and the size apart could open a 2-pixel gap).
    static func snapped(_ rect: Rect, width: Int, height: Int) -> PixelRect {
        func even(_ value: Double) -> Int { Int((value / 2).rounded()) * 2 }
        let left = even(rect.x * Double(width))
        let top = even(rect.y * Double(height))
        return PixelRect(
            x: left, y: top, width: even((rect.x + rect.width) * Double(width)) - left,
            height: even((rect.y + rect.height) * Double(height)) - top)
    }
}
