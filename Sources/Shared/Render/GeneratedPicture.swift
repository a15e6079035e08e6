import FarmCore
import FarmMedia
import FarmText

/// A picture the renderer makes itself (a solid, a gradient or a title), painted once per size
/// and kept. Painted in 8-bit BT.709; on an HDR canvas, converted as any SDR source is.
final class GeneratedPicture {
    private let content: ItemContent
    private var painted: Picture?
    /// Nil on an SDR canvas.
    private let converter: TransferConverter?

    init(_ content: ItemContent, canvas: DynamicRange) {
        self.content = content
        converter = canvas == .sdr ? nil : TransferConverter(from: .sdr, to: canvas)
    }

    /// The picture at `width` x `height`; a title's sizes are multiplied by `scale`, the ratio of
    /// that size to the frame it was written for.
    func picture(width: Int, height: Int, scale: Double) throws -> Picture {
        if let painted, painted.width == width, painted.height == height { return painted }
        var picture: Picture
        switch content {
        case .solid(let color):
            if let converter {
                picture = Picture(width: width, height: height, depth: 10)
                picture.fill(try converter.sample(of: color))
            } else {
                picture = Picture(width: width, height: height)
                picture.fill(YUVColor(color))
            }
            painted = picture
            return picture
        case .gradient(let gradient):
            picture = Picture(width: width, height: height)
            picture.paint(gradient)
        case .title(let title):
            picture = try Self.paint(title, width: width, height: height, scale: scale)
        case .media, .captions:
            preconditionFailure("media items are drawn from their LayerSource, captions as titles")
        }
        if let converter {
            // The converter's picture is its own, overwritten by its next call: keep a copy.
            let converted = try converter.picture(from: SourceImage(picture: picture))
            picture = converted.sameShape()
            converted.copy(to: picture)
        }
        painted = picture
        return picture
    }

    /// Box, shadow, outline and glyphs, bottom to top.
    private static func paint(_ title: Title, width: Int, height: Int, scale: Double) throws -> Picture {
        let text = try TextRasterizer.render(title, width: width, height: height, scale: scale)
        var layers: [PaintLayer] = []
        if let background = title.background, let box = text.box {
            layers.append(PaintLayer(coverage: box, color: YUVColor(background.color), opacity: background.opacity))
        }
        if let shadow = title.shadow {
            let offset = (x: Int((shadow.x * scale).rounded()), y: Int((shadow.y * scale).rounded()))
            for coverage in [text.outline, text.fill].compactMap({ $0 }) {
                layers.append(
                    PaintLayer(
                        coverage: coverage, color: YUVColor(shadow.color), opacity: shadow.opacity, offset: offset))
            }
        }
        if let outline = title.outline, let coverage = text.outline {
            layers.append(PaintLayer(coverage: coverage, color: YUVColor(outline.color)))
        }
        layers.append(PaintLayer(coverage: text.fill, color: YUVColor(title.color)))
        return Picture.painted(width: width, height: height, layers: layers)
    }
}
