/// A colour grade: an ASC CDL, then a 3D LUT, either optional (never both absent once parsed).
///
/// Where it applies is the key's place in the project: on an item (its pictures before they are
/// composited), on a track (each of the track's pictures, after the item's own grade) or on the
/// output (the composited frame, before the encoder). docs/project-format.md says how.
public struct ColourGrade: Sendable, Codable, Hashable {
    public var cdl: ColourDecision?
    public var lut: LUTReference?

    public init(cdl: ColourDecision? = nil, lut: LUTReference? = nil) {
        self.cdl = cdl
        self.lut = lut
    }
}

/// An ASC Color Decision List: slope, offset and power per channel, then saturation.
///
/// `out = clamp(in × slope + offset) ^ power`, clamped to 0–1, then with Rec. 709 luma
/// `L = 0.2126 R + 0.7152 G + 0.0722 B`: `out = clamp(L + saturation × (out − L))`: the ASC
/// CDL 1.2 formulas, with its clamps.
public struct ColourDecision: Sendable, Codable, Hashable {
    /// Red, green, blue.
    public var slope: [Double]
    public var offset: [Double]
    public var power: [Double]
    public var saturation: Double

    public init(
        slope: [Double] = [1, 1, 1], offset: [Double] = [0, 0, 0], power: [Double] = [1, 1, 1], saturation: Double = 1
    ) {
        self.slope = slope
        self.offset = offset
        self.power = power
        self.saturation = saturation
    }

    /// Rec. 709 luma weights, as the ASC CDL names them for saturation.
    public static let lumaWeights = (red: 0.2126, green: 0.7152, blue: 0.0722)
}

/// A `.cube` file a grade reads: its resolved path and, once the loader has read it, the SHA-256
/// of its bytes, which chunk keys hash so that a changed LUT renders again.
public struct LUTReference: Sendable, Codable, Hashable {
    public var path: String
    public var digest: String?

    public init(path: String, digest: String? = nil) {
        self.path = path
        self.digest = digest
    }
}
