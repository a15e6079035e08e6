/// What an item shows or plays: a media asset, or a picture the renderer makes itself.
public enum ItemContent: Sendable, Codable, Hashable {
    /// An asset id from the project's `assets`.
    case media(String)
    /// One opaque colour over the item's frame.
    case solid(RGBColor)
    case gradient(Gradient)
    case title(Title)
    /// The cues of a caption asset.
    case captions(CaptionPlacement)
}

/// Colours blended across the item's frame: along a direction, or outwards from its centre.
public struct Gradient: Sendable, Codable, Hashable {
    public enum Kind: String, Sendable, Codable, Hashable, CaseIterable {
        case linear, radial
    }

    public var kind: Kind
    /// Evenly spaced stops, first to last (at least two).
    public var colors: [RGBColor]
    /// Linear only: the direction the colours run, in degrees clockwise from left-to-right
    /// (90 runs top to bottom).
    public var angle: Double

    public init(kind: Kind, colors: [RGBColor], angle: Double) {
        self.kind = kind
        self.colors = colors
        self.angle = angle
    }
}

extension Item {
    /// The asset id of a media item; nil for generated pictures.
    public var asset: String? {
        if case .media(let id) = content { return id }
        return nil
    }
}
