import FarmCore
import FarmMedia

/// Renders output frame `n` of a project: for each video track in z-order, the item active at
/// `n / fps`, cropped, scaled into its rectangle with its fit mode, and blended with its opacity
/// and alpha over the background.
///
/// Deterministic: a frame's bytes depend only on the project and `n`, never on which frames were
/// rendered before, how many threads decode, or where a chunk starts. All arithmetic on pixels
/// is integer; all times are exact.
///
/// Not thread-safe: one compositor per rendering thread.
public final class Compositor {
    public let project: Project
    private let media: [String: MediaInfo]
    private let decoderThreads: Int
    private let canvas: Picture
    private let background: YUVColor
    /// Visible video tracks bottom to top: the track's opacity and its items sorted by time.
    private let layers: [(opacity: Double, items: [(key: ItemKey, item: Item)])]
    private var sources: [ItemKey: LayerSource] = [:]

    struct ItemKey: Hashable {
        var track: Int
        var item: Int
    }

    public init(loaded: LoadedProject, decoderThreads: Int = 1) {
        project = loaded.project
        media = loaded.media
        self.decoderThreads = decoderThreads
        canvas = Picture(width: project.output.width, height: project.output.height)
        background = YUVColor(project.output.background)
        layers = project.tracks.enumerated().filter { $0.element.kind == .video && !$0.element.hidden }.map {
            trackIndex, track in
            let items = track.items.enumerated().map { (key: ItemKey(track: trackIndex, item: $0), item: $1) }
            return (track.opacity, items.sorted { $0.item.at < $1.item.at })
        }
    }

    public var width: Int { canvas.width }
    public var height: Int { canvas.height }

    /// Composites frame `n` and returns the canvas, which the next call overwrites.
    @discardableResult
    public func render(frame n: Int64) throws -> Picture {
        let time = project.output.time(ofFrame: n)
        canvas.fill(background)
        for layer in layers {
            guard let (key, item) = layer.items.first(where: { $0.item.at <= time && time < $0.item.end }) else {
                continue
            }
            try draw(item, key: key, at: time, trackOpacity: layer.opacity)
        }
        releaseSources(before: time)
        return canvas
    }

    private func draw(_ item: Item, key: ItemKey, at time: Rational, trackOpacity: Double) throws {
        let local = time - item.at
        let opacity = Int((item.opacity.value(at: local) * trackOpacity * 255).rounded())
        guard opacity > 0, let info = media[item.asset], let asset = project.assets[item.asset] else { return }
        let sourceTime = item.sourceTime(at: time)
        if item.pastEnd == .black, let length = info.duration, sourceTime >= length {
            drawBlack(frame: item.frame.value(at: local), opacity: opacity)
            return
        }
        let source = try sources[key] ?? LayerSource(path: asset.path, info: info, decoderThreads: decoderThreads)
        sources[key] = source
        let (image, identity) = try source.image(at: sourceTime)
        guard
            let geometry = LayerGeometry(
                sourceWidth: image.width, sourceHeight: image.height, canvasWidth: canvas.width,
                canvasHeight: canvas.height, crop: item.crop.value(at: local), frame: item.frame.value(at: local),
                fit: item.fit),
            let visible = geometry.destination.intersection(width: canvas.width, height: canvas.height)
        else { return }
        let offsetX = visible.x - geometry.destination.x
        let offsetY = visible.y - geometry.destination.y
        if geometry.source.width == geometry.destination.width, geometry.source.height == geometry.destination.height,
            image.isWorkingFormat
        {
            canvas.draw(
                image, sourceX: geometry.source.x + offsetX, sourceY: geometry.source.y + offsetY, into: visible,
                opacity: opacity)
        } else {
            let scaled = try source.scaledPicture(image, identity: identity, geometry: geometry)
            canvas.draw(
                SourceImage(picture: scaled), sourceX: offsetX, sourceY: offsetY, into: visible, opacity: opacity)
        }
    }

    private func drawBlack(frame: Rect, opacity: Int) {
        guard
            let geometry = LayerGeometry(
                sourceWidth: canvas.width, sourceHeight: canvas.height, canvasWidth: canvas.width,
                canvasHeight: canvas.height, crop: .unit, frame: frame, fit: .stretch),
            let visible = geometry.destination.intersection(width: canvas.width, height: canvas.height)
        else { return }
        canvas.fill(visible, with: .black, alpha: opacity)
    }

    /// Closes decoders of items that ended before `time`; rendering only moves forward in a run.
    private func releaseSources(before time: Rational) {
        for key in sources.keys where project.tracks[key.track].items[key.item].end <= time {
            sources[key] = nil
        }
    }
}
