/// The primaries an HDR source's pictures are in, as its tags name them. HDR is BT.2020 unless
/// tagged otherwise; a master graded for cinema and delivered as IMF (DaVinci Resolve's, for
/// one) is PQ in P3 with D65 white (`smpte432`), whose colours then go to BT.2020 (or BT.709)
/// by the matrix below, in linear light. SDR sources are read as BT.709 whatever they say
/// (docs/media.md).
public enum SourcePrimaries: Sendable, Hashable {
    /// The source's range's own: BT.709 for SDR, BT.2020 for PQ and HLG.
    case native
    /// SMPTE EG 432-1: P3 primaries, D65 white.
    case p3D65

    /// The primaries of a source tagged `name` (ffprobe's name) in `range`.
    public init(name: String?, range: DynamicRange) {
        self = range != .sdr && name == "smpte432" ? .p3D65 : .native
    }

    /// Linear P3-D65 to linear BT.2020, both with D65 white, from the chromaticities of each
    /// (SMPTE EG 432-1, ITU-R BT.2020) in double precision, rounded to six places.
    public static let p3D65ToBT2020: [Float] = [
        0.753833, 0.198597, 0.047570,
        0.045744, 0.941777, 0.012479,
        -0.001210, 0.017602, 0.983609,
    ]
}
