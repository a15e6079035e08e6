/// What the renderer needs to know about one media file, read once before rendering.
public struct MediaInfo: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable {
        /// Moving pictures (with or without sound).
        case video
        /// A single picture: PNG, JPEG, ...
        case still
        /// Sound only.
        case audio
    }

    public var kind: Kind
    /// Media length; nil for stills, which last as long as their item.
    public var duration: Rational?
    public var width: Int
    public var height: Int
    /// Clockwise rotation in degrees a player applies (0, 90, 180, 270).
    public var rotation: Int
    /// Mirrored left to right before the rotation: a photo's EXIF Orientation 2, 4, 5 or 7.
    public var mirrored = false
    public var hasAudio: Bool
    public var hasAlpha: Bool
    /// Nominal frame rate of the video stream, if known.
    public var frameRate: Rational?
    /// Width over height of one pixel as displayed, upright (1 for square pixels): DV, DVD and
    /// HDV store anamorphic pictures that players widen or narrow by it.
    public var pixelAspect: Rational = Rational(1)
    /// Bits per sample of the pictures (8 for most, 10 for HDR and camera originals).
    public var bitDepth = 8
    /// The pictures' transfer as ffprobe names it ("smpte2084" for PQ, "arib-std-b67" for
    /// HLG), if tagged.
    public var transfer: String?
    /// The pictures' primaries as ffprobe names them ("smpte432" for P3-D65), if tagged.
    public var primaries: String?
    /// Pictures stored as two fields.
    public var interlaced = false
    /// Sound channels of the stream the farm reads (0 for none).
    public var channels = 0
    /// Numbered frames (`Asset.sequence`): the number of the first one, frame 0 of the media.
    public var firstFrame: Int?

    public init(
        kind: Kind, duration: Rational?, width: Int, height: Int, rotation: Int, hasAudio: Bool, hasAlpha: Bool,
        frameRate: Rational?
    ) {
        self.kind = kind
        self.duration = duration
        self.width = width
        self.height = height
        self.rotation = rotation
        self.hasAudio = hasAudio
        self.hasAlpha = hasAlpha
        self.frameRate = frameRate
    }
}
