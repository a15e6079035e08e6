import CFFmpeg

/// What the compositor does to its canvas: blend layers and fill rectangles, in exact integers.
extension Picture {
    /// Blends `region.width` x `region.height` pixels of `image`, from its pixel (`sourceX`,
    /// `sourceY`), over this picture at `region`'s origin. `opacity` is 0...255; the image's own
    /// alpha, when it has one, multiplies it. The image must be in the working format
    /// (`image.isWorkingFormat`), every coordinate even and the region inside this picture.
    public func draw(_ image: SourceImage, sourceX: Int, sourceY: Int, into region: PixelRect, opacity: Int) {
        guard let planes = image.directPlanes(x: sourceX, y: sourceY) else {
            preconditionFailure("draw needs a picture in the working format; scale it first")
        }
        Blend.draw(
            planes, over: view(x: region.x, y: region.y), width: region.width, height: region.height, opacity: opacity)
    }

    /// Paints `region` with `color` at `alpha` (0...255) over what is there.
    public func fill(_ region: PixelRect, with color: YUVColor, alpha: Int) {
        view(x: region.x, y: region.y).fill(width: region.width, height: region.height, color: color, alpha: alpha)
    }

    /// Copies the picture's Y, U and V planes into an encoder's frame of the same size.
    func copy(into frame: UnsafeMutablePointer<AVFrame>) {
        let data = frame.pointee.data
        let strides = frame.pointee.linesize
        let (width, height) = (Int32(self.width), Int32(self.height))
        av_image_copy_plane(data.0, strides.0, planes[0], self.strides[0], width, height)
        av_image_copy_plane(data.1, strides.1, planes[1], self.strides[1], width / 2, height / 2)
        av_image_copy_plane(data.2, strides.2, planes[2], self.strides[2], width / 2, height / 2)
    }
}
