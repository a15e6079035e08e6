import FarmCore
import FarmMedia

/// A picture the renderer makes itself (a solid or a gradient), painted once per size and kept.
final class GeneratedPicture {
    private let content: ItemContent
    private var painted: Picture?

    init(_ content: ItemContent) {
        self.content = content
    }

    func picture(width: Int, height: Int) -> Picture {
        if let painted, painted.width == width, painted.height == height { return painted }
        let picture = Picture(width: width, height: height)
        switch content {
        case .solid(let color): picture.fill(YUVColor(color))
        case .gradient(let gradient): picture.paint(gradient)
        case .media: preconditionFailure("media items are drawn from their LayerSource")
        }
        painted = picture
        return picture
    }
}
