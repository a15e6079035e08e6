import FarmCore
import FarmMedia
import FarmText

/// A picture the renderer makes itself (a solid, a gradient or a title), painted once per size
/// and kept.
final class GeneratedPicture {
    private let content: ItemContent
    private var painted: Picture?

    init(_ content: ItemContent) {
        self.content = content
    }

    /// The picture at `width` x `height`; a title's sizes are multiplied by `scale`, the ratio of
    /// that size to the frame it was written for.
    func picture(width: Int, height: Int, scale: Double) throws -> Picture {
        if let painted, painted.width == width, painted.height == height { return painted }
        let picture: Picture
        switch content {
        case .solid(let color):
            picture = Picture(width: width, height: height)
            picture.fill(YUVColor(color))
        case .gradient(let gradient):
            picture = Picture(width: width, height: height)
            picture.paint(gradient)
        case .title(let title):
            picture = try Self.paint(title, width: width, height: height, scale: scale)
        case .media:
            preconditionFailure("media items are drawn from their LayerSource")
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
