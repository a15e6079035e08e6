import CFFmpeg

/// What the compositor does to its canvas: blend layers and fill rectangles, in exact integers.
extension Picture {
    /// Blends `region.width` x `region.height` pixels of `image`, from its pixel (`sourceX`,
    /// `sourceY`), over this picture at `region`'s origin. `opacity` is 0...255; the image's own
    /// alpha, when it has one, multiplies it. The image must be in this picture's working format
    /// (`image.isWorkingFormat(depth:)`), every coordinate even and the region inside this picture.
    public func draw(_ image: SourceImage, sourceX: Int, sourceY: Int, into region: PixelRect, opacity: Int) {
        withView(x: region.x, y: region.y) { target in
            switch target {
            case .eight(let target):
                guard let planes: PlaneSet<UInt8> = image.directPlanes(x: sourceX, y: sourceY) else {
                    preconditionFailure("draw needs a picture in the working format; scale it first")
                }
                Blend.draw(planes, over: target, width: region.width, height: region.height, opacity: opacity)
            case .ten(let target):
                guard let planes: PlaneSet<UInt16> = image.directPlanes(x: sourceX, y: sourceY) else {
                    preconditionFailure("draw needs a picture in the working format; scale it first")
                }
                Blend.draw(planes, over: target, width: region.width, height: region.height, opacity: opacity)
            }
        }
    }

    /// Paints `region` with `color` (samples of this picture's depth) at `alpha` (0...255) over
    /// what is there.
    public func fill(_ region: PixelRect, with color: SampleColor, alpha: Int) {
        withView(x: region.x, y: region.y) { target in
            switch target {
            case .eight(let view): view.fill(width: region.width, height: region.height, color: color, alpha: alpha)
            case .ten(let view): view.fill(width: region.width, height: region.height, color: color, alpha: alpha)
            }
        }
    }

    /// Copies the picture's Y, U and V planes into an encoder's frame of the same size and depth.
    func copy(into frame: UnsafeMutablePointer<AVFrame>) {
        let data = frame.pointee.data
        let strides = frame.pointee.linesize
        let bytes = Int32(depth == 8 ? 1 : 2)
        let (width, height) = (Int32(self.width) * bytes, Int32(self.height))
        av_image_copy_plane(data.0, strides.0, planes[0], self.strides[0], width, height)
        av_image_copy_plane(data.1, strides.1, planes[1], self.strides[1], width / 2, height / 2)
        av_image_copy_plane(data.2, strides.2, planes[2], self.strides[2], width / 2, height / 2)
    }
}
