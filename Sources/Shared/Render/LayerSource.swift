import FarmCore
import FarmMedia

/// The pictures of one timeline item, with the scaled copy kept while nothing changes (stills,
/// held frames, and slow motion reuse it).
final class LayerSource {
    private enum Content {
        case video(VideoReader)
        case still(StillPicture)
    }

    private let content: Content
    private let scaler = Scaler()
    /// Nil for sources that need no rotation. It has its own scaler, so the layer's scaler keeps
    /// its cached context for the placement step.
    private let upright: Upright?
    /// Nil for SDR sources; HDR pictures pass through it before any other step.
    private let toneMapper: ToneMapper?
    /// The last picture turned upright or tone-mapped, kept while the source shows it.
    private var preparedPicture: (identity: Int64, picture: Picture)?
    private var scaled: Picture?
    private var scaledKey: (identity: Int64, geometry: LayerGeometry)?

    init(path: String, info: MediaInfo, decoderThreads: Int, reads: MediaReads?) throws {
        upright = info.kind == .video && info.rotation != 0 ? Upright(rotation: info.rotation) : nil
        toneMapper = info.kind == .video ? ToneMapper.transfer(named: info.transfer).map(ToneMapper.init) : nil
        switch info.kind {
        case .still: content = .still(try StillImage.load(path: path, info: info, reads: reads))
        default: content = .video(try VideoReader(path: path, info: info, threads: decoderThreads, reads: reads))
        }
    }

    /// The picture at media time `time`, and a number that changes whenever the picture does.
    func image(at time: Rational) throws -> (SourceImage, identity: Int64) {
        switch content {
        case .still(let picture):
            return (picture.image, 0)
        case .video(let reader):
            let frame = try reader.frame(at: time)
            let identity = reader.pictureIdentity
            guard upright != nil || toneMapper != nil else { return (frame, identity) }
            if let cached = preparedPicture, cached.identity == identity {
                return (SourceImage(picture: cached.picture), identity)
            }
            var picture = try toneMapper?.picture(from: frame)
            if let upright { picture = try upright.picture(from: picture.map(SourceImage.init(picture:)) ?? frame) }
            guard let picture else { return (frame, identity) }
            preparedPicture = (identity, picture)
            return (SourceImage(picture: picture), identity)
        }
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
            target = Picture(width: size.width, height: size.height, hasAlpha: image.hasAlpha)
        }
        try scaler.scale(image, region: geometry.source, into: target)
        scaled = target
        scaledKey = (identity, geometry)
        return target
    }
}
