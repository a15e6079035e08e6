import FarmCore
import FarmMedia

/// The pictures of one timeline item, with the scaled (and graded) copy kept while nothing
/// changes (stills, held frames, and slow motion reuse it).
final class LayerSource {
    private enum Content {
        case video(VideoReader)
        case sequence(ImageSequenceReader)
        case still(StillPicture)
    }

    private let content: Content
    private let scaler = Scaler()
    /// Nil for sources that need no rotation. `turner` turns pictures in their own format;
    /// `upright`, with its own scaler (so the layer's keeps its cached context for the placement
    /// step), converts first the formats that cannot be turned so.
    private let turner: TurnedVideo?
    private let upright: Upright?
    /// Nil for sources in the canvas's dynamic range; others pass through it before any other
    /// step (HDR tone-mapped to an SDR canvas, SDR lifted onto an HDR one).
    private let converter: TransferConverter?
    /// The canvas's bits a sample.
    private let depth: Int
    /// The last picture turned upright or converted, kept while the source shows it.
    private var preparedPicture: (identity: Int64, picture: Picture)?
    /// The last picture turned in its own format, kept while the source shows it.
    private var turnedImage: (identity: Int64, image: SourceImage)?
    private var scaled: Picture?
    private var scaledKey: (identity: Int64, geometry: LayerGeometry)?
    /// The item's and its track's grades, applied to each placed picture before it is drawn.
    let grade: GradeProgram?
    private lazy var grader = PictureGrader()

    init(
        path: String, info: MediaInfo, canvas: DynamicRange, decoderThreads: Int, reads: MediaReads?,
        grade: GradeProgram? = nil
    ) throws {
        self.grade = grade
        depth = canvas.depth
        let turns = info.kind == .video && info.rotation != 0
        turner = turns ? TurnedVideo(rotation: info.rotation) : nil
        upright = turns ? Upright(rotation: info.rotation, depth: depth) : nil
        let range = DynamicRange(transferName: info.transfer)
        let primaries = SourcePrimaries(name: info.primaries, range: range)
        converter =
            range == canvas && primaries == .native
            ? nil : TransferConverter(from: range, primaries: primaries, to: canvas)
        if info.firstFrame != nil, let pattern = FramePattern(path: path) {
            content = .sequence(
                try ImageSequenceReader(pattern: pattern, info: info, threads: decoderThreads, reads: reads))
            return
        }
        switch info.kind {
        case .still: content = .still(try StillImage.load(path: path, info: info, reads: reads))
        default: content = .video(try VideoReader(path: path, info: info, threads: decoderThreads, reads: reads))
        }
    }

    /// The picture at media time `time`, and a number that changes whenever the picture does.
    func image(at time: Rational) throws -> (SourceImage, identity: Int64) {
        switch content {
        case .still(let picture):
            return (try prepared(picture.image, identity: 0), 0)
        case .video(let reader):
            let frame = try reader.frame(at: time)
            let identity = reader.pictureIdentity
            return (try prepared(frame, identity: identity), identity)
        case .sequence(let reader):
            let frame = try reader.frame(at: time)
            let identity = reader.pictureIdentity
            return (try prepared(frame, identity: identity), identity)
        }
    }

    /// `image` turned upright and converted to the canvas's range, when it needs either. A
    /// picture turned in its own format and needing no conversion is left for the placement's
    /// one scale.
    private func prepared(_ image: SourceImage, identity: Int64) throws -> SourceImage {
        guard upright != nil || converter != nil else { return image }
        if let cached = turnedImage, cached.identity == identity { return cached.image }
        if let cached = preparedPicture, cached.identity == identity { return SourceImage(picture: cached.picture) }
        let turned = turner?.picture(from: image)
        if let turned, converter == nil {
            turnedImage = (identity, turned)
            return turned
        }
        var picture = try converter?.picture(from: turned ?? image)
        if let upright, turned == nil {
            picture = try upright.picture(from: picture.map(SourceImage.init(picture:)) ?? image)
        }
        guard let picture else { return image }
        preparedPicture = (identity, picture)
        return SourceImage(picture: picture)
    }

    /// The source region scaled to the destination size, reusing the last result when the same
    /// picture is placed the same way.
    func scaledPicture(_ image: SourceImage, identity: Int64, geometry: LayerGeometry) throws -> Picture {
        if let scaled, let key = scaledKey, key.identity == identity, key.geometry == geometry { return scaled }
        let size = geometry.destination
        let target: Picture
        if let scaled, scaled.width == size.width, scaled.height == size.height, scaled.hasAlpha == image.hasAlpha {
            target = scaled
        } else {
            target = Picture(width: size.width, height: size.height, hasAlpha: image.hasAlpha, depth: depth)
        }
        try scaler.scale(image, region: geometry.source, into: target)
        // Graded once per picture and placement; the cached copy is the graded one.
        if let grade { try grader.grade(target, by: grade) }
        scaled = target
        scaledKey = (identity, geometry)
        return target
    }
}
