import CFFmpeg
import FarmCore

/// The colour an output's pictures are in, written as tags (range, matrix, primaries, transfer)
/// on the encoder and again on every stream a join copies: a segment's container may not keep
/// them all (MOV keeps no range for FFV1), and a file whose tags are missing is shown by guess.
public struct VideoColour: Sendable, Hashable {
    let range: AVColorRange
    let matrix: AVColorSpace
    let primaries: AVColorPrimaries
    let transfer: AVColorTransferCharacteristic

    /// Limited-range BT.709: what the compositor's 8-bit canvas holds.
    public static let bt709 = VideoColour(
        range: AVCOL_RANGE_MPEG, matrix: AVCOL_SPC_BT709, primaries: AVCOL_PRI_BT709, transfer: AVCOL_TRC_BT709)

    /// BT.2020 primaries and matrix (non-constant luminance), limited range, with the PQ or HLG
    /// transfer: the 10-bit canvas.
    public static let pq = VideoColour(
        range: AVCOL_RANGE_MPEG, matrix: AVCOL_SPC_BT2020_NCL, primaries: AVCOL_PRI_BT2020,
        transfer: AVCOL_TRC_SMPTE2084)
    public static let hlg = VideoColour(
        range: AVCOL_RANGE_MPEG, matrix: AVCOL_SPC_BT2020_NCL, primaries: AVCOL_PRI_BT2020,
        transfer: AVCOL_TRC_ARIB_STD_B67)

    /// The tags of an output in `range`.
    public init(_ range: DynamicRange) {
        switch range {
        case .sdr: self = .bt709
        case .pq: self = .pq
        case .hlg: self = .hlg
        }
    }

    /// The tags the farm's encoder gave the pictures of `stream`, from its transfer (a segment's
    /// container may have lost its range, never its transfer).
    public init(writtenIn stream: DemuxedStream) {
        switch stream.stream.pointee.codecpar.pointee.color_trc {
        case AVCOL_TRC_SMPTE2084: self = .pq
        case AVCOL_TRC_ARIB_STD_B67: self = .hlg
        default: self = .bt709
        }
    }

    private init(
        range: AVColorRange, matrix: AVColorSpace, primaries: AVColorPrimaries,
        transfer: AVColorTransferCharacteristic
    ) {
        self.range = range
        self.matrix = matrix
        self.primaries = primaries
        self.transfer = transfer
    }

    func tag(_ context: UnsafeMutablePointer<AVCodecContext>) {
        context.pointee.color_range = range
        context.pointee.colorspace = matrix
        context.pointee.color_primaries = primaries
        context.pointee.color_trc = transfer
    }

    func tag(_ frame: UnsafeMutablePointer<AVFrame>) {
        frame.pointee.color_range = range
        frame.pointee.colorspace = matrix
        frame.pointee.color_primaries = primaries
        frame.pointee.color_trc = transfer
    }

    func tag(_ parameters: UnsafeMutablePointer<AVCodecParameters>) {
        parameters.pointee.color_range = range
        parameters.pointee.color_space = matrix
        parameters.pointee.color_primaries = primaries
        parameters.pointee.color_trc = transfer
    }
}
